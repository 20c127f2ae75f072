import MCUmgr
import XCTest

/// The chunk size helper against the encoder itself: the largest chunk fits the frame limit and
/// one byte more would not.
final class UploadChunkSizeTests: XCTestCase {
    private func frameCount(offset: UInt32, start: ImageUploadChunk.Start?, dataCount: Int) -> Int {
        var chunk = ImageUploadChunk(offset: offset, data: [UInt8](repeating: 0xEE, count: dataCount))
        chunk.start = start
        // Counted without building a frame, which could not hold the 65 536-byte payloads tried.
        return SMPHeader.size + SMPRequest.imageUpload(chunk).body.encoded.count
    }

    func testLargestChunkFitsAndOneMoreByteDoesNot() {
        let starts: [ImageUploadChunk.Start?] = [
            nil,
            .init(length: 300_000, sha256: [UInt8](repeating: 1, count: 32)),
            .init(image: 1, length: 20, sha256: nil, upgrade: true),
        ]
        for start in starts {
            for offset: UInt32 in start == nil ? [1, 23, 24, 255, 256, 65_535, 65_536, 5_000_000] : [0] {
                for limit in Array(16...400) + [495, 498, 2475, 65_000, 65_543] {
                    let count = ImageUploadChunk.maximumDataCount(
                        frameLimit: limit, offset: offset, start: start)
                    let context = "limit \(limit), offset \(offset), start \(String(describing: start))"
                    if count > 0 {
                        XCTAssertLessThanOrEqual(
                            frameCount(offset: offset, start: start, dataCount: count), limit, context)
                    } else {
                        XCTAssertGreaterThan(
                            frameCount(offset: offset, start: start, dataCount: 1), limit, context)
                    }
                    XCTAssertGreaterThan(
                        frameCount(offset: offset, start: start, dataCount: count + 1), limit, context)
                }
            }
        }
    }

    func testWorkedExample() {
        // MTU 247 → 244-byte frames; at offset 4096 a frame is 8 (header) + 1 (map head) + 4 ("off")
        // + 3 (4096) + 5 ("data") + 2 (byte string head) + data: 221 bytes of data fill it exactly.
        XCTAssertEqual(ImageUploadChunk.maximumDataCount(frameLimit: 244, offset: 4096, start: nil), 221)
        XCTAssertEqual(frameCount(offset: 4096, start: nil, dataCount: 221), 244)
        // 23 bytes would need 45: 22 with a one-byte head, as 24 would need a two-byte one.
        XCTAssertEqual(ImageUploadChunk.maximumDataCount(frameLimit: 44, offset: 4096, start: nil), 22)
        XCTAssertEqual(frameCount(offset: 4096, start: nil, dataCount: 23), 45)
        XCTAssertEqual(ImageUploadChunk.maximumDataCount(frameLimit: 20, offset: 4096, start: nil), 0)
    }

    /// The smallest frame holds the first chunk with the whole 32-byte header, and one byte less
    /// does not: 8 (header) + 1 (map) + 5 ("off" 0) + 5 ("data") + 2 + 32 + 4 ("len") + 3 (49816).
    func testSmallestFirstFrameHoldsTheHeader() {
        let start = ImageUploadChunk.Start(length: 49816, sha256: nil)
        let smallest = ImageUploadChunk.smallestFirstFrame(image: 0, length: 49816)
        XCTAssertEqual(smallest, 60)
        XCTAssertEqual(frameCount(offset: 0, start: start, dataCount: MCUbootHeader.size), smallest)
        XCTAssertLessThan(
            ImageUploadChunk.maximumDataCount(frameLimit: smallest - 1, offset: 0, start: start),
            MCUbootHeader.size)
        // a file shorter than a header needs only its own bytes
        XCTAssertLessThan(ImageUploadChunk.smallestFirstFrame(image: 0, length: 10), smallest)
    }

    func testFrameLimitOverBluetooth() {
        XCTAssertEqual(
            ImageUploadChunk.frameLimit(attMTU: 247, bufferSize: 384, deviceReassembles: false), 244)
        XCTAssertEqual(
            ImageUploadChunk.frameLimit(attMTU: 498, bufferSize: 384, deviceReassembles: false), 384)
        XCTAssertEqual(
            ImageUploadChunk.frameLimit(attMTU: 247, bufferSize: 2475, deviceReassembles: true), 2475)
    }
}
