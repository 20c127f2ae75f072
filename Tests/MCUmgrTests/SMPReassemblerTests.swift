import MCUmgr
import XCTest

/// Notifications joined into frames: split anywhere, several in one, and a stream out of step.
final class SMPReassemblerTests: XCTestCase {
    private let first = SMPFrame(
        operation: .readResponse, version: .v2, group: .image, sequence: 1, command: 0,
        payload: CBORValue.map(["images": [["slot": 0, "version": "1.2.3", "hash": .bytes(Array(0..<32))]]])
            .encoded)
    private let second = SMPFrame(
        operation: .writeResponse, version: .v1, group: .image, sequence: 2, command: 1,
        payload: CBORValue.map(["off": 512]).encoded)

    func testAFrameSplitOverNotificationsCompletesOnTheLastOne() throws {
        var reassembler = SMPReassembler()
        let bytes = first.encoded
        XCTAssertEqual(try reassembler.append(Array(bytes[0..<5])), [])
        XCTAssertEqual(try reassembler.append(Array(bytes[5..<20])), [])
        XCTAssertEqual(reassembler.bufferedCount, 20)
        XCTAssertEqual(try reassembler.append(Array(bytes[20...])), [first])
        XCTAssertEqual(reassembler.bufferedCount, 0)
    }

    func testEverySplitOfTwoFramesYieldsBothInOrder() throws {
        let stream = first.encoded + second.encoded
        for cut in 0...stream.count {
            var reassembler = SMPReassembler()
            let frames =
                try reassembler.append(Array(stream[..<cut])) + reassembler.append(Array(stream[cut...]))
            XCTAssertEqual(frames, [first, second], "cut at \(cut)")
            XCTAssertEqual(reassembler.bufferedCount, 0)
        }
    }

    func testSeveralFramesInOneNotificationAndAPartialOneAfter() throws {
        var reassembler = SMPReassembler()
        let third = second.encoded
        XCTAssertEqual(try reassembler.append(first.encoded + second.encoded + third[..<3]), [first, second])
        XCTAssertEqual(reassembler.bufferedCount, 3)
        XCTAssertEqual(try reassembler.append(Array(third[3...])), [second])
    }

    func testAnImpossibleHeaderDropsTheBufferAndTheNextFrameDecodes() throws {
        var reassembler = SMPReassembler()
        XCTAssertEqual(try reassembler.append([0x19, 0x00]), [])
        // Completing a header of the reserved version 0b11: out of step.
        XCTAssertThrowsError(try reassembler.append([0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0xFF]))
        XCTAssertEqual(try reassembler.append(Array(first.encoded.prefix(8))), [])
        reassembler.reset()
        XCTAssertEqual(reassembler.bufferedCount, 0)
        XCTAssertEqual(try reassembler.append(second.encoded), [second])
        var broken = SMPReassembler()
        XCTAssertThrowsError(try broken.append([0x18, 0, 0, 0, 0, 0, 0, 0]))
        XCTAssertEqual(broken.bufferedCount, 0)
    }
}
