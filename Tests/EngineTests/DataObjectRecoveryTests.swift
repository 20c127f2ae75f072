import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Every branch of what the engine does after a try at a Secure data object, without a device.
final class DataObjectRecoveryTests: XCTestCase {
    private let object = 4096..<8192

    private func attempt(
        held: Int, crcMatches: Bool, waited: Duration = .zero, roundTrip: Duration = .milliseconds(30),
        stream: Duration = .milliseconds(100)
    ) -> DataObjectRecovery.Try {
        DataObjectRecovery.Try(
            heldOffset: held, crcMatches: crcMatches, waited: waited, createRoundTrip: roundTrip,
            streamDuration: stream)
    }

    func testAnObjectHeldWholeIsCompleteAndCleanOnlyWithoutALoss() {
        var recovery = DataObjectRecovery(range: object, continuingFrom: nil)
        XCTAssertTrue(recovery.needsCreate)
        XCTAssertEqual(recovery.judge(attempt(held: 8192, crcMatches: true)).0, .complete(wasClean: true))

        var lossy = DataObjectRecovery(range: object, continuingFrom: nil)
        _ = lossy.judge(attempt(held: 6144, crcMatches: true))
        XCTAssertEqual(lossy.judge(attempt(held: 8192, crcMatches: true)).0, .complete(wasClean: false))
    }

    func testALostTailIsResentAfterTheTimeTheDeviceCouldNotTakePackets() {
        var recovery = DataObjectRecovery(range: object, continuingFrom: nil)
        // half the object lost over 100 ms: the device was busy about 50 ms, right after Create
        let (decision, loss) = recovery.judge(attempt(held: 6144, crcMatches: true))
        XCTAssertEqual(decision, .resendTail(lost: 2048))
        XCTAssertEqual(recovery.from, 6144)
        XCTAssertFalse(recovery.needsCreate)
        XCTAssertEqual(recovery.waitBeforeStream, .milliseconds(50))
        XCTAssertEqual(
            loss,
            DataObjectRecovery.FlashLoss(
                waited: .zero, blocked: .milliseconds(50), roundTrip: .milliseconds(30)))
        // nothing gained on the resend: the wait doubles, and a resend teaches the flash wait nothing
        let (again, secondLoss) = recovery.judge(
            attempt(held: 6144, crcMatches: true, waited: .milliseconds(50), stream: .milliseconds(10)))
        XCTAssertEqual(again, .resendTail(lost: 2048))
        XCTAssertEqual(recovery.waitBeforeStream, .milliseconds(100))
        XCTAssertNil(secondLoss)
    }

    func testPacketsReplacedByLaterOnesCreateTheObjectAgain() {
        var recovery = DataObjectRecovery(range: object, continuingFrom: 5000)
        XCTAssertFalse(recovery.needsCreate)
        XCTAssertEqual(recovery.from, 5000)
        let (decision, loss) = recovery.judge(attempt(held: 7000, crcMatches: false))
        XCTAssertEqual(decision, .createAgainAfterLoss)
        XCTAssertNil(loss, "no Create in that try: nothing for the flash wait")
        XCTAssertTrue(recovery.needsCreate)
        XCTAssertEqual(recovery.from, 4096)
    }

    func testLossesEndInBytesLostAfterTheLastRecovery() {
        var recovery = DataObjectRecovery(range: object, continuingFrom: nil)
        for _ in 1...DataObjectRecovery.lostBytesRecoveries {
            guard case .resendTail = recovery.judge(attempt(held: 6144, crcMatches: true)).0 else {
                return XCTFail("gave up early")
            }
        }
        guard case .fail(.bytesLost, _) = recovery.judge(attempt(held: 6144, crcMatches: true)).0 else {
            return XCTFail("did not give up")
        }
    }

    func testCorruptionCreatesTheObjectAgainThenEndsInACRCError() {
        var recovery = DataObjectRecovery(range: object, continuingFrom: nil)
        XCTAssertEqual(
            recovery.judge(attempt(held: 8192, crcMatches: false)).0, .createAgainAfterMismatch(attempt: 1))
        XCTAssertTrue(recovery.needsCreate)
        XCTAssertEqual(
            recovery.judge(attempt(held: 8192, crcMatches: false)).0, .createAgainAfterMismatch(attempt: 2))
        guard case .fail(.crcError, let detail) = recovery.judge(attempt(held: 8192, crcMatches: false)).0
        else {
            return XCTFail("did not give up")
        }
        XCTAssertTrue(detail.contains("offset 4096"), detail)
    }

    /// An offset outside the object (a device that reports 0, or more than the object) is not a
    /// loss of this object's packets: the object is sent again whole.
    func testAnOffsetOutsideTheObjectIsTakenAsCorruption() {
        var recovery = DataObjectRecovery(range: object, continuingFrom: nil)
        XCTAssertEqual(
            recovery.judge(attempt(held: 0, crcMatches: false)).0, .createAgainAfterMismatch(attempt: 1))
        XCTAssertEqual(
            recovery.judge(attempt(held: 9000, crcMatches: false)).0, .createAgainAfterMismatch(attempt: 2))
    }
}
