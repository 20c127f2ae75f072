import DFUSupport
import GATT
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// `NotificationInbox`'s waits: each ends with the value, or with a timeout once its own time is
/// up, whatever waits came before it (one watchdog serves them all).
final class NotificationInboxTests: XCTestCase {
    func testAWaitNobodyAnswersTimesOutAfterItsTimeout() async throws {
        let (inbox, _) = Self.inbox()
        let started = ContinuousClock.now
        await assertTimesOut { try await inbox.next(timeout: .milliseconds(200), waitingFor: "a receipt") }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(200))
    }

    func testAWaitAfterAnsweredWaitsStillTimesOut() async throws {
        let (inbox, values) = Self.inbox()
        for value in 0..<20 {
            values.yield([UInt8(value)])
            let received = try await inbox.next(timeout: .milliseconds(300), waitingFor: "a response")
            XCTAssertEqual(received, [UInt8(value)])
        }
        await assertTimesOut { try await inbox.next(timeout: .milliseconds(300), waitingFor: "a response") }
    }

    func testAShortWaitAfterALongOneTimesOutOnItsOwnTime() async throws {
        let (inbox, values) = Self.inbox()
        values.yield([1])
        _ = try await inbox.next(timeout: .seconds(30), waitingFor: "a response")
        let started = ContinuousClock.now
        await assertTimesOut { try await inbox.next(timeout: .milliseconds(100), waitingFor: "a receipt") }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }

    func testValuesThatCameFirstAreTakenInOrderAndTheEndFailsLaterWaits() async throws {
        let (inbox, values) = Self.inbox()
        values.yield([1])
        values.yield([2])
        values.finish(throwing: GATTError.disconnected(device: "test", reason: "link lost"))
        var received: [[UInt8]] = []
        for _ in 0..<2 { received.append(try await inbox.next(timeout: .seconds(5), waitingFor: "a value")) }
        XCTAssertEqual(received, [[1], [2]])
        do {
            _ = try await inbox.next(timeout: .seconds(5), waitingFor: "a value")
            XCTFail("waited past the end of the notifications")
        } catch GATTError.disconnected(_, let reason) {
            XCTAssertEqual(reason, "link lost")
        }
    }

    /// The inbox takes a value from the transport only for a wait, one per wait: the simulator
    /// moves an SMP link's clock when its answer is taken (docs/simulated-time.md).
    func testAValueIsTakenFromTheTransportOnlyForAWait() async throws {
        let pulls = Locked(0)
        let secondPull = expectation(description: "a second value taken without a wait")
        secondPull.isInverted = true
        let stream = AsyncThrowingStream<[UInt8], any Error>(unfolding: {
            let count = pulls.withLock { count -> Int in
                count += 1
                return count
            }
            if count == 2 { secondPull.fulfill() }
            return [UInt8(count)]
        })
        let inbox = NotificationInbox(stream, device: "test")
        let first = try await inbox.next(timeout: .seconds(5), waitingFor: "a value")
        XCTAssertEqual(first, [1])
        await fulfillment(of: [secondPull], timeout: 0.3)
        let second = try await inbox.next(timeout: .seconds(5), waitingFor: "a value")
        XCTAssertEqual(second, [2])
        XCTAssertEqual(pulls.withLock { $0 }, 2)
        inbox.close()
    }

    private static func inbox() -> (NotificationInbox, AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        return (NotificationInbox(stream, device: "test"), continuation)
    }

    private func assertTimesOut(
        _ wait: () async throws -> [UInt8], file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            let value = try await wait()
            XCTFail("received \(value) instead of timing out", file: file, line: line)
        } catch GATTError.timeout {
        } catch {
            XCTFail("failed with \(error) instead of timing out", file: file, line: line)
        }
    }
}
