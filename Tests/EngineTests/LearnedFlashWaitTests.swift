import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

final class LearnedFlashWaitTests: XCTestCase {
    func testBlockedTimeIsTheLostShareOfTheStream() {
        let blocked = LearnedFlashWait.blockedTime(lostBytes: 1024, sentBytes: 4096, over: .milliseconds(400))
        XCTAssertEqual(blocked, .milliseconds(100))
        XCTAssertEqual(LearnedFlashWait.blockedTime(lostBytes: 0, sentBytes: 4096, over: .seconds(1)), .zero)
        XCTAssertEqual(
            LearnedFlashWait.blockedTime(lostBytes: 9000, sentBytes: 4096, over: .seconds(10)),
            LearnedFlashWait.cap)
    }

    func testAFirstObjectLossAddsARoundTripAndLaterLossesTheirMeasuredNeed() {
        var wait = LearnedFlashWait()
        XCTAssertEqual(wait.afterCreate, .zero)
        // The first object, behind the settings write: blocked for 285 ms.
        wait.learnLoss(
            waited: .zero, blocked: .milliseconds(285), roundTrip: .milliseconds(30), firstObjectOfPart: true)
        XCTAssertEqual(wait.afterCreate, .milliseconds(285), "its retry waits out what it measured")
        wait.learnCleanObject()
        XCTAssertEqual(wait.afterCreate, .milliseconds(30) + .milliseconds(255) / 2)
        for _ in 0..<12 { wait.learnCleanObject() }
        XCTAssertLessThan(wait.afterCreate, .milliseconds(31))
        XCTAssertGreaterThanOrEqual(wait.afterCreate, .milliseconds(30), "the round trip stays")
        // A later object: a short blocked time still adds one connection event (half a round trip).
        wait.learnLoss(
            waited: .milliseconds(30), blocked: .milliseconds(5), roundTrip: .milliseconds(30),
            firstObjectOfPart: false)
        XCTAssertEqual(wait.afterCreate, .milliseconds(45))
        // A later object that measures a longer need: every Create waits that from now on.
        wait.learnLoss(
            waited: .milliseconds(45), blocked: .milliseconds(200), roundTrip: .milliseconds(30),
            firstObjectOfPart: false)
        XCTAssertEqual(wait.afterCreate, .milliseconds(245))
        wait.learnCleanObject()
        XCTAssertEqual(wait.afterCreate, .milliseconds(245), "a steady need does not shrink")
    }

    func testTheWaitIsCapped() {
        var wait = LearnedFlashWait()
        for _ in 0..<100 {
            wait.learnLoss(
                waited: wait.afterCreate, blocked: .seconds(1), roundTrip: .milliseconds(100),
                firstObjectOfPart: false)
        }
        XCTAssertEqual(wait.afterCreate, LearnedFlashWait.cap)
    }
}
