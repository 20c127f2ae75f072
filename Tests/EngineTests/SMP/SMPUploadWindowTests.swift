import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// The upload window's decisions: chunks in flight, answers in order, a lost chunk rewinding the
/// upload, stale answers after a rewind, lost answers (docs/mcumgr.md, "Window").
final class SMPUploadWindowTests: XCTestCase {
    func testAnswersInOrderAdvanceTheConfirmedBytes() {
        var window = SMPUploadWindow(length: 300, capacity: 3, from: 0)
        for sequence: UInt8 in 0..<3 {
            XCTAssertTrue(window.canSend)
            window.sent(sequence: sequence, count: 100)
        }
        XCTAssertFalse(window.canSend, "the window is full")
        XCTAssertEqual(window.answered(sequence: 0, expectedOffset: 100), .accepted)
        XCTAssertEqual(window.confirmed, 100)
        XCTAssertFalse(window.canSend, "every byte is sent")
        XCTAssertEqual(window.answered(sequence: 1, expectedOffset: 200), .accepted)
        XCTAssertEqual(window.answered(sequence: 2, expectedOffset: 300), .accepted)
        XCTAssertTrue(window.isComplete)
        XCTAssertFalse(window.hasChunksInFlight)
    }

    func testALostChunkRewindsOnceAndLaterAnswersAreStale() {
        var window = SMPUploadWindow(length: 1000, capacity: 4, from: 0)
        for sequence: UInt8 in 10..<14 { window.sent(sequence: sequence, count: 100) }
        // chunk 10 (0..<100) was lost: the device answers the next ones with offset 0
        XCTAssertEqual(window.answered(sequence: 11, expectedOffset: 0), .rewound(to: 0))
        XCTAssertEqual(window.nextOffset, 0)
        XCTAssertTrue(window.canSend)
        window.sent(sequence: 14, count: 100)
        XCTAssertEqual(window.answered(sequence: 12, expectedOffset: 0), .stale)
        XCTAssertEqual(window.answered(sequence: 13, expectedOffset: 0), .stale)
        XCTAssertEqual(window.answered(sequence: 14, expectedOffset: 100), .accepted)
        XCTAssertEqual(window.confirmed, 100)
        XCTAssertEqual(window.nextOffset, 100)
        XCTAssertEqual(window.answered(sequence: 10, expectedOffset: 100), .unknown, "answered already")
    }

    /// sdk-nrf-bm's firmware loader answers a chunk its full image buffer cannot take with
    /// success and the chunk's own offset: the chunk goes again, later answers are stale.
    func testABusyAnswerSendsTheChunkAgain() {
        var window = SMPUploadWindow(length: 1000, capacity: 2, from: 0)
        window.sent(sequence: 1, count: 100)
        XCTAssertEqual(window.answered(sequence: 1, expectedOffset: 100), .accepted)
        window.sent(sequence: 2, count: 100)
        window.sent(sequence: 3, count: 100)
        XCTAssertEqual(window.answered(sequence: 2, expectedOffset: 100), .busy(at: 100))
        XCTAssertEqual(window.nextOffset, 100)
        XCTAssertEqual(window.answered(sequence: 3, expectedOffset: 100), .stale)
        window.sent(sequence: 4, count: 100)
        XCTAssertEqual(window.answered(sequence: 4, expectedOffset: 200), .accepted)
        XCTAssertEqual(window.confirmed, 200)
    }

    func testAResumedUploadStartsAtTheDevicesOffset() {
        var window = SMPUploadWindow(length: 1000, capacity: 2, from: 600)
        XCTAssertEqual(window.nextOffset, 600)
        XCTAssertEqual(window.confirmed, 600)
        window.sent(sequence: 1, count: 400)
        XCTAssertEqual(window.answered(sequence: 1, expectedOffset: 1000), .accepted)
        XCTAssertTrue(window.isComplete)
    }

    func testLostAnswersSendAgainFromTheConfirmedBytes() {
        var window = SMPUploadWindow(length: 500, capacity: 3, from: 0)
        for sequence: UInt8 in 0..<3 { window.sent(sequence: sequence, count: 100) }
        XCTAssertEqual(window.answered(sequence: 0, expectedOffset: 100), .accepted)
        window.answersLost()
        XCTAssertFalse(window.hasChunksInFlight)
        XCTAssertEqual(window.nextOffset, 100)
        XCTAssertEqual(window.answered(sequence: 1, expectedOffset: 200), .unknown, "forgotten")
    }

    func testOnlyTheLastChunkInFlightAndACompletedFile() {
        var window = SMPUploadWindow(length: 300, capacity: 2, from: 0)
        window.sent(sequence: 0, count: 100)
        window.sent(sequence: 1, count: 100)
        XCTAssertEqual(window.answered(sequence: 0, expectedOffset: 100), .accepted)
        XCTAssertFalse(window.onlyTheLastChunkInFlight, "the file goes on")
        window.sent(sequence: 2, count: 100)
        XCTAssertEqual(window.answered(sequence: 1, expectedOffset: 200), .accepted)
        XCTAssertTrue(window.onlyTheLastChunkInFlight)
        window.completed()
        XCTAssertTrue(window.isComplete)
        XCTAssertEqual(window.answered(sequence: 2, expectedOffset: 300), .unknown, "forgotten")
    }

    func testADeviceAheadOfTheChunkSkipsForward() {
        var window = SMPUploadWindow(length: 1000, capacity: 2, from: 0)
        window.sent(sequence: 0, count: 100)
        XCTAssertEqual(window.answered(sequence: 0, expectedOffset: 700), .rewound(to: 700))
        XCTAssertEqual(window.nextOffset, 700)
        XCTAssertEqual(window.confirmed, 700)
    }

    /// Issue 38: an answered request keeps its buffer and its answer's until the notification is
    /// reported sent (Zephyr `smp_bt_tx_pkt`), which may be after the next chunk arrives.
    func testTheWindowKeepsTwoBuffersFree() {
        let parameters = [(1, 1), (2, 1), (3, 1), (4, 2), (16, 14)]
        for (count, capacity) in parameters {
            let window = SMPImageUpload.windowCapacity(.init(bufferSize: 384, bufferCount: UInt32(count)))
            XCTAssertEqual(window, capacity, "buf_count \(count)")
        }
    }
}
