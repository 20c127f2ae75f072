import MCUmgr
import XCTest

/// The SMP bound's arithmetic (`dfu-bench smp`, docs/benchmarks.md "SMP through bluetoothd"):
/// the frames as a client cuts them, and the time of a worked example either side of the point
/// where a window's sending outlasts its first frame's round trip.
final class SMPUploadBoundTests: XCTestCase {
    private let start = ImageUploadChunk.Start(length: 300 * 1024, sha256: [UInt8](repeating: 7, count: 32))

    func testFramesCarryTheWholeFileEachWithinTheLimit() {
        for limit in [384, 510, 2475] {
            let frames = SMPUploadBound.frames(length: 300 * 1024, frameLimit: limit, start: start)
            XCTAssertTrue(frames.allSatisfy { $0 <= limit }, "limit \(limit)")
            let firstData = ImageUploadChunk.maximumDataCount(frameLimit: limit, offset: 0, start: start)
            var offset = firstData
            for frame in frames.dropFirst().dropLast() {
                // a full later chunk fills the frame to the limit, give or take a byte of CBOR heads
                XCTAssertGreaterThanOrEqual(frame, limit - 1, "limit \(limit), offset \(offset)")
                offset += ImageUploadChunk.maximumDataCount(
                    frameLimit: limit, offset: UInt32(offset), start: nil)
            }
            XCTAssertLessThan(offset, 300 * 1024)
            XCTAssertGreaterThan(frames.first!, frames.last!)
        }
        // 2475-byte frames: 126 for 307,200 bytes (about 2,450 data bytes each)
        XCTAssertEqual(SMPUploadBound.frames(length: 300 * 1024, frameLimit: 2475, start: start).count, 126)
    }

    func testAWindowCostsItsFirstFramesRoundTripWhenSendingItIsShorter() {
        let bound = SMPUploadBound(
            frameBytes: [100, 200, 200, 200, 200], window: 2, roundTrip: .milliseconds(10),
            roundTripBytes: 100, bytesPerSecond: 1_000_000, erase: .milliseconds(50))
        // first chunk: its round trip + the erase; then two windows, each the round trip of a
        // 200-byte frame: 10 ms for the 100 bytes measured + 0.1 ms for the other 100
        XCTAssertEqual(bound.duration / .milliseconds(1), 60 + 10.1 + 10.1, accuracy: 1e-9)
    }

    func testAWindowCostsItsBytesWhenSendingItIsLonger() {
        let bound = SMPUploadBound(
            frameBytes: [300, 200, 200, 200, 200], window: 3, roundTrip: .milliseconds(10),
            roundTripBytes: 100, bytesPerSecond: 10_000, erase: .zero)
        // first: 10 ms + 200 bytes at 10 kB/s; windows of 600 bytes (60 ms) and of 200 bytes (20 ms)
        XCTAssertEqual(bound.duration / .milliseconds(1), 10 + 20 + 60 + 20, accuracy: 1e-9)
    }
}
