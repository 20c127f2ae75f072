import XCTest

@testable import NordicDFU

/// The encoding vectors of protocol doc §2.13 and the traces of §1.10 and §2.12.
final class ProtocolVectorTests: XCTestCase {
    func testSecureRequestsEncodeAsTheVectors() {
        XCTAssertEqual(
            SecureDFURequest.create(.data, size: 4096).encoded, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
        XCTAssertEqual(
            SecureDFURequest.create(.command, size: 70).encoded, [0x01, 0x01, 0x46, 0x00, 0x00, 0x00])
        XCTAssertEqual(SecureDFURequest.setPacketReceiptNotification(12).encoded, [0x02, 0x0C, 0x00])
        XCTAssertEqual(SecureDFURequest.setPacketReceiptNotification(0).encoded, [0x02, 0x00, 0x00])
        XCTAssertEqual(SecureDFURequest.select(.command).encoded, [0x06, 0x01])
        XCTAssertEqual(SecureDFURequest.select(.data).encoded, [0x06, 0x02])
        XCTAssertEqual(SecureDFURequest.calculateChecksum.encoded, [0x03])
        XCTAssertEqual(SecureDFURequest.execute.encoded, [0x04])
        XCTAssertEqual(SecureDFURequest.abort.encoded, [0x0C])
    }

    func testSecureRequestsDecodeWhatTheyEncode() throws {
        let requests: [SecureDFURequest] = [
            .protocolVersion, .create(.command, size: 139), .create(.data, size: 4096),
            .setPacketReceiptNotification(12), .calculateChecksum, .execute, .select(.data), .getMTU,
            .ping(7), .getHardwareVersion, .getFirmwareVersion(imageIndex: 1), .abort,
        ]
        for request in requests {
            XCTAssertEqual(try SecureDFURequest(decoding: request.encoded), request)
        }
        XCTAssertThrowsError(try SecureDFURequest(decoding: [0x05])) { error in
            XCTAssertEqual((error as? SecureDFURequest.Rejection)?.result, .opCodeNotSupported)
        }
        XCTAssertThrowsError(try SecureDFURequest(decoding: [0x01, 0x03, 0, 0, 0, 0])) { error in
            XCTAssertEqual((error as? SecureDFURequest.Rejection)?.result, .unsupportedType)
        }
        XCTAssertThrowsError(try SecureDFURequest(decoding: [0x01, 0x01, 0x46])) { error in
            XCTAssertEqual((error as? SecureDFURequest.Rejection)?.result, .invalidParameter)
        }
    }

    func testSecureResponsesOfTheTrace() throws {
        let select = try SecureDFUResponse(decoding: [
            0x60, 0x06, 0x01, 0x00, 0x01, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
        ])
        XCTAssertEqual(select.outcome, .selected(maximumSize: 256, offset: 0, crc: 0))
        let checksum = try SecureDFUResponse(decoding: [
            0x60, 0x03, 0x01, 0x46, 0, 0, 0, 0xE3, 0x15, 0xFC, 0x82,
        ])
        XCTAssertEqual(checksum.outcome, .checksum(offset: 70, crc: 0x82FC_15E3))
        XCTAssertEqual(checksum.encoded, [0x60, 0x03, 0x01, 0x46, 0, 0, 0, 0xE3, 0x15, 0xFC, 0x82])
        let final = try SecureDFUResponse(decoding: [
            0x60, 0x03, 0x01, 0x2C, 0x50, 0, 0, 0xE8, 0x66, 0x4C, 0xDB,
        ])
        XCTAssertEqual(final.outcome, .checksum(offset: 20524, crc: 0xDB4C_66E8))
        XCTAssertEqual(try SecureDFUResponse(decoding: [0x60, 0x04, 0x01]).outcome, .success)
        XCTAssertEqual(try SecureDFUResponse(decoding: [0x60, 0x04, 0x01, 0xFF]).outcome, .success)
    }

    func testSecureErrorVectors() throws {
        let rejected = try SecureDFUResponse(decoding: [0x60, 0x01, 0x0B, 0x05])
        XCTAssertEqual(rejected.opCode, 0x01)
        XCTAssertEqual(rejected.outcome, .failure(.extendedError, extended: .firmwareVersionFailure))
        XCTAssertEqual(rejected.encoded, [0x60, 0x01, 0x0B, 0x05])
        let notPermitted = try SecureDFUResponse(decoding: [0x60, 0x04, 0x08])
        XCTAssertEqual(notPermitted.outcome, .failure(.operationNotPermitted, extended: nil))
    }

    func testMalformedSecureResponsesAreErrorsNotCrashes() {
        let malformed: [[UInt8]] = [
            [], [0x60], [0x60, 0x06], [0x10, 0x01, 0x01], [0x60, 0x06, 0x01, 0x00],
            [0x60, 0x03, 0x01, 1, 2, 3],
            [0x60, 0x01, 0x0B], [0x60, 0x01, 0x0B, 0xEE], [0x60, 0x01, 0x09],
        ]
        for bytes in malformed {
            XCTAssertThrowsError(try SecureDFUResponse(decoding: bytes), "\(bytes)")
        }
    }

    func testLegacyVectors() throws {
        XCTAssertEqual(LegacyDFURequest.startDFU([.softdevice, .bootloader]).encoded, [0x01, 0x03])
        XCTAssertEqual(LegacyDFURequest.startDFU(.application).encoded, [0x01, 0x04])
        XCTAssertEqual(
            LegacyImageSizes(softdevice: 88000, bootloader: 15360).encoded,
            [0xC0, 0x57, 0x01, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        XCTAssertEqual(
            LegacyImageSizes(application: 20524).encoded, [0, 0, 0, 0, 0, 0, 0, 0, 0x2C, 0x50, 0, 0])
        XCTAssertEqual(LegacyDFURequest.packetReceiptNotificationRequest(12).encoded, [0x08, 0x0C, 0x00])
        XCTAssertEqual(LegacyDFURequest.initParametersBegin.encoded, [0x02, 0x00])
        XCTAssertEqual(LegacyDFURequest.initParametersComplete.encoded, [0x02, 0x01])
        XCTAssertEqual(
            try LegacyDFUResponse(decoding: [0x11, 0xF0, 0, 0, 0]), .packetReceipt(bytesReceived: 240))
        XCTAssertEqual(
            try LegacyDFUResponse(decoding: [0x10, 0x04, 0x05]), .response(opCode: 0x04, status: .crcError))
        XCTAssertEqual(LegacyDFUResponse.packetReceipt(bytesReceived: 240).encoded, [0x11, 0xF0, 0, 0, 0])
        XCTAssertEqual(
            try LegacyDFUResponse(decoding: [0x10, 0x07, 0x01, 0x2C, 0x50, 0, 0]), .receivedImageSize(20524))
    }

    func testLegacyRequestsDecodeWhatTheyEncode() throws {
        let requests: [LegacyDFURequest] = [
            .startDFU(.application), .startDFU([.softdevice, .bootloader]), .startDFUVersion1,
            .initParametersBegin, .initParametersComplete, .receiveFirmwareImage, .validateFirmware,
            .activateAndReset, .reset, .reportReceivedImageSize, .packetReceiptNotificationRequest(10),
        ]
        for request in requests {
            XCTAssertEqual(try LegacyDFURequest(decoding: request.encoded), request)
        }
        XCTAssertThrowsError(try LegacyDFURequest(decoding: [0x08, 0x0C])) { error in
            XCTAssertEqual((error as? LegacyDFURequest.Rejection)?.status, .notSupported)
        }
        XCTAssertThrowsError(try LegacyDFURequest(decoding: [0x02])) { error in
            XCTAssertEqual((error as? LegacyDFURequest.Rejection)?.status, .operationFailed)
        }
        XCTAssertNil(LegacyImageSizes(decoding: [0, 0, 0]))
    }

    func testMalformedLegacyResponsesAreErrors() {
        for bytes: [UInt8] in [
            [], [0x10], [0x10, 0x01], [0x10, 0x01, 0x09], [0x10, 0x01, 0x01, 0x00], [0x11, 1, 2],
            [0x60, 1, 1],
        ] {
            XCTAssertThrowsError(try LegacyDFUResponse(decoding: bytes), "\(bytes)")
        }
    }

    func testButtonlessVectors() throws {
        let name = ButtonlessDFURequest.advertisementName("Dfu04217")
        XCTAssertEqual(
            ButtonlessDFURequest.setAdvertisementName(name).encoded,
            [0x02, 0x08, 0x44, 0x66, 0x75, 0x30, 0x34, 0x32, 0x31, 0x37])
        XCTAssertEqual(ButtonlessDFURequest.enterBootloader.encoded, [0x01])
        XCTAssertEqual(try ButtonlessDFUResponse(decoding: [0x20, 0x01, 0x01]).result, .success)
        XCTAssertEqual(try ButtonlessDFUResponse(decoding: [0x20, 0x01, 0x07]).result, .notBonded)
        XCTAssertThrowsError(try ButtonlessDFUResponse(decoding: [0x20, 0x01]))
        XCTAssertThrowsError(try ButtonlessDFURequest(decoding: [0x02, 0x00])) { error in
            XCTAssertEqual((error as? ButtonlessDFURequest.Rejection)?.result, .invalidAdvertisementName)
        }
        XCTAssertEqual(
            try ButtonlessDFURequest(decoding: [0x02, 0x02, 0x41, 0x42]), .setAdvertisementName([0x41, 0x42]))
    }

    func testAdvertisementNameIsCutOnACharacterBoundary() {
        XCTAssertEqual(ButtonlessDFURequest.advertisementName(String(repeating: "a", count: 25)).count, 20)
        // 7 three-byte characters are 21 bytes: only 6 fit.
        let name = ButtonlessDFURequest.advertisementName(String(repeating: "€", count: 7))
        XCTAssertEqual(name.count, 18)
        XCTAssertEqual(String(decoding: name, as: UTF8.self), String(repeating: "€", count: 6))
    }

    func testLegacyDFUVersion() {
        XCTAssertEqual(LegacyDFUVersion(decoding: [0x08, 0x00]), LegacyDFUVersion(major: 0, minor: 8))
        XCTAssertEqual(LegacyDFUVersion(decoding: [0x01, 0x00])?.isApplicationMode, true)
        XCTAssertNil(LegacyDFUVersion(decoding: [0x08]))
        XCTAssertEqual(LegacyDFUVersion(major: 0, minor: 6).description, "0.6")
        XCTAssertLessThan(LegacyDFUVersion(major: 0, minor: 5), LegacyDFUVersion(major: 0, minor: 8))
    }
}
