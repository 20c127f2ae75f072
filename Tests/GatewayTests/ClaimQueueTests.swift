import XCTest

@testable import DFUGateway

/// A gateway's queue of a rollout's devices (`ClaimQueue`): the order kept through removals and
/// moves, whatever the entries left behind.
final class ClaimQueueTests: XCTestCase {
    func testKeepsTheOrderThroughRemovalsAndMoves() {
        var queue = ClaimQueue()
        queue.append(["a", "b", "c", "d", "e"])
        queue.append(["c", "f"])  // c is queued already
        queue.remove("b")
        queue.moveToEnd(["a", "x", "d"])  // x is not queued
        XCTAssertEqual(queue.first(10) { _ in true }, ["c", "e", "f", "a", "d"])
        XCTAssertEqual(queue.count, 5)
        XCTAssertTrue(queue.contains("a"))
        XCTAssertFalse(queue.contains("b"))
        XCTAssertFalse(queue.contains("x"))
    }

    func testFirstTakesOnlyWhatItAcceptsUpToTheLimit() {
        var queue = ClaimQueue()
        queue.append((0..<10).map(String.init))
        XCTAssertEqual(queue.first(3) { Int($0)! % 2 == 1 }, ["1", "3", "5"])
        XCTAssertEqual(queue.first(3) { $0 == "9" }, ["9"])
    }

    /// Many more moves than devices, with removals and new devices among them (the entries
    /// compacted several times): the queue holds exactly what a plain array would, in order.
    func testMatchesAnArrayThroughManyChanges() {
        var queue = ClaimQueue()
        var expected = (0..<200).map { "d\($0)" }
        queue.append(expected)
        for round in 0..<3_000 {
            let device = expected[(round * 37) % expected.count]
            switch round % 20 {
            case 0:
                queue.remove(device)
                expected.removeAll { $0 == device }
            case 10:
                queue.append(["n\(round)"])
                expected.append("n\(round)")
            default:
                queue.moveToEnd([device])
                expected.removeAll { $0 == device }
                expected.append(device)
            }
        }
        XCTAssertEqual(queue.first(1_000) { _ in true }, expected)
        XCTAssertEqual(queue.count, expected.count)
    }
}
