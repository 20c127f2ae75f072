import MCUmgr
import XCTest

/// The 8-byte header and the requests an update sends, byte for byte.
final class SMPFrameTests: XCTestCase {
    func testHeaderBitsAndByteOrder() throws {
        let header = SMPHeader(
            operation: .write, version: .v2, length: 0x0102, group: SMPGroup(rawValue: 0x0304),
            sequence: 0xA5,
            command: 7)
        XCTAssertEqual(header.encoded, [0x0A, 0x00, 0x01, 0x02, 0x03, 0x04, 0xA5, 0x07])
        XCTAssertEqual(try SMPHeader(decoding: header.encoded[...]), header)
        let v1 = SMPHeader(
            operation: .readResponse, version: .v1, length: 0, group: .os, sequence: 0, command: 6)
        XCTAssertEqual(v1.encoded, [0x01, 0, 0, 0, 0, 0, 0, 6])
        // Flags are kept as sent.
        XCTAssertEqual(try SMPHeader(decoding: [0x03, 0x80, 0, 0, 0, 1, 9, 1][...]).flags, 0x80)
    }

    func testHeadersThatCannotBeValidAreRefused() {
        for bytes: [UInt8] in [
            [0x20, 0, 0, 0, 0, 0, 0, 0],  // a reserved bit
            [0x13, 0, 0, 0, 0, 0, 0, 0],  // version 0b10
            [0x1B, 0, 0, 0, 0, 0, 0, 0],  // version 0b11
            [0x04, 0, 0, 0, 0, 0, 0, 0],  // op 4
            [0x01, 0, 0, 0, 0, 0, 0],  // 7 bytes
        ] {
            XCTAssertThrowsError(try SMPHeader(decoding: bytes[...]), "\(bytes)")
        }
    }

    func testFrameLengthMustMatchTheHeader() throws {
        let frame = SMPRequest.echo("hi").frame(sequence: 1)
        XCTAssertEqual(try SMPFrame(decoding: frame.encoded), frame)
        XCTAssertThrowsError(try SMPFrame(decoding: Array(frame.encoded.dropLast())))
        XCTAssertThrowsError(try SMPFrame(decoding: frame.encoded + [0]))
        do {
            _ = try SMPFrame(decoding: [0x0B, 0, 0, 9, 0, 1, 0, 1])
            XCTFail("decoded")
        } catch {
            XCTAssertEqual(
                error.description,
                "SMP frame of 8 bytes, but its header announces 17: 0b 00 00 09 00 01 00 01")
        }
    }

    func testOSRequests() {
        // {"d": "hi"}
        XCTAssertEqual(
            SMPRequest.echo("hi").frame(sequence: 0x10).encoded,
            hex("0a 00 0006 0000 10 00  a1 6164 626869"))
        XCTAssertEqual(
            SMPRequest.reset(force: false).frame(sequence: 2).encoded, hex("0a 00 0001 0000 02 05 a0"))
        XCTAssertEqual(
            SMPRequest.reset(force: true).frame(sequence: 2).encoded,
            hex("0a 00 0008 0000 02 05 a1 65666f726365 f5"))
        XCTAssertEqual(
            SMPRequest.mcumgrParameters.frame(sequence: 3, version: .v1).encoded,
            hex("00 00 0001 0000 03 06 a0"))
    }

    func testImageStateRequests() {
        let hash = [UInt8](repeating: 0xAB, count: 32)
        XCTAssertEqual(SMPRequest.imageState.frame(sequence: 4).encoded, hex("08 00 0001 0001 04 00 a0"))
        // {"hash": h'ab…', "confirm": false}: keys in encoded order, "hash" (4 letters) first.
        XCTAssertEqual(
            SMPRequest.imageTest(hash: hash).body.encoded,
            hex("a2 6468617368 5820") + hash + hex("67636f6e6669726d f4"))
        XCTAssertEqual(SMPRequest.imageConfirm(hash: nil).body, ["confirm": true])
        XCTAssertEqual(SMPRequest.imageConfirm(hash: hash).body, ["hash": .bytes(hash), "confirm": true])
        XCTAssertEqual(SMPRequest.imageTest(hash: hash).frame(sequence: 5).header.operation, .write)
        XCTAssertEqual(
            SMPRequest.imageErase(slot: nil).frame(sequence: 6).encoded, hex("0a 00 0001 0001 06 05 a0"))
        XCTAssertEqual(SMPRequest.imageErase(slot: 1).body, ["slot": 1])
    }

    func testUploadChunks() {
        let sha = [UInt8](repeating: 0x5A, count: 32)
        let first = ImageUploadChunk(
            first: [1, 2, 3], start: .init(image: 1, length: 5000, sha256: sha, upgrade: true))
        XCTAssertEqual(
            first.body,
            [
                "off": 0, "data": .bytes([1, 2, 3]), "len": 5000, "sha": .bytes(sha), "image": 1,
                "upgrade": true,
            ])
        let minimal = ImageUploadChunk(first: [9], start: .init(length: 1, sha256: nil))
        XCTAssertEqual(minimal.body, ["off": 0, "data": .bytes([9]), "len": 1])
        let later = ImageUploadChunk(offset: 4096, data: [7, 8])
        XCTAssertEqual(
            SMPRequest.imageUpload(later).frame(sequence: 9).encoded,
            hex("0a 00 0010 0001 09 01  a2 636f6666 191000 6464617461 420708"))
    }
}
