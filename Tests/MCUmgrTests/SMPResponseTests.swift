import MCUmgr
import XCTest

/// Responses as Zephyr writes them (zcbor without CONFIG_ZCBOR_CANONICAL: indefinite-length maps
/// and lists), their errors, and what is refused.
final class SMPResponseTests: XCTestCase {
    /// An indefinite-length map of these entries, as zcbor writes it.
    private func zcborMap(_ entries: [(String, [UInt8])]) -> [UInt8] {
        [0xBF] + entries.flatMap { CBORValue.text($0.0).encoded + $0.1 } + [0xFF]
    }

    private func response(
        _ payload: [UInt8], group: SMPGroup, command: UInt8, operation: SMPOperation = .writeResponse
    ) throws -> SMPResponse {
        try SMPResponse(
            frame: SMPFrame(
                operation: operation, version: .v2, group: group, sequence: 1, command: command,
                payload: payload))
    }

    private let hashA = [UInt8](repeating: 0xA1, count: 32)
    private let hashB = [UInt8](repeating: 0xB2, count: 32)

    func testImageListOfATestedImage() throws {
        let slot0 = zcborMap([
            ("slot", [0x00]), ("version", CBORValue.text("1.0.0").encoded),
            ("hash", CBORValue.bytes(hashA).encoded),
            ("bootable", [0xF5]), ("pending", [0xF4]), ("confirmed", [0xF5]), ("active", [0xF5]),
            ("permanent", [0xF4]),
        ])
        let slot1 = zcborMap([
            ("slot", [0x01]), ("version", CBORValue.text("1.1.0.7").encoded),
            ("hash", CBORValue.bytes(hashB).encoded),
            ("bootable", [0xF5]), ("pending", [0xF5]), ("confirmed", [0xF4]), ("active", [0xF4]),
            ("permanent", [0xF4]),
        ])
        let payload = zcborMap([("images", [0x9F] + slot0 + slot1 + [0xFF]), ("splitStatus", [0x00])])
        let state = try ImageStateResponse(
            response(payload, group: .image, command: 0, operation: .readResponse))
        XCTAssertEqual(state.splitStatus, 0)
        XCTAssertEqual(
            state.images,
            [
                ImageSlotState(slot: 0, version: "1.0.0", hash: hashA, confirmed: true, active: true),
                ImageSlotState(slot: 1, version: "1.1.0.7", hash: hashB, pending: true),
            ])
        XCTAssertEqual(
            state.images[1].parsedVersion, MCUbootVersion(major: 1, minor: 1, revision: 0, build: 7))
    }

    func testFrugalMultiImageListLeavesFalseFlagsOut() throws {
        let payload: CBORValue = [
            "images": [
                [
                    "image": 1, "slot": 0, "version": "2.0.0", "hash": .bytes(hashA), "active": true,
                    "confirmed": true,
                ],
                ["image": 1, "slot": 1, "version": "<???>", "hash": .bytes(hashB)],
            ]
        ]
        let state = try ImageStateResponse(response(payload.encoded, group: .image, command: 0))
        XCTAssertNil(state.splitStatus)
        XCTAssertEqual(state.images.map(\.image), [1, 1])
        XCTAssertEqual(state.images.map(\.bootable), [false, false])
        XCTAssertEqual(state.images.map(\.active), [true, false])
        XCTAssertNil(state.images[1].parsedVersion)
    }

    func testUploadParametersAndEchoAnswers() throws {
        let upload = try ImageUploadResponse(
            response(zcborMap([("off", hex("191000"))]), group: .image, command: 1))
        XCTAssertEqual(upload, ImageUploadResponse(offset: 4096, match: nil))
        let legacy: CBORValue = ["rc": 0, "off": 70000, "match": true]
        XCTAssertEqual(
            try ImageUploadResponse(response(legacy.encoded, group: .image, command: 1)),
            ImageUploadResponse(offset: 70000, match: true))
        let parameters: CBORValue = ["buf_size": 2475, "buf_count": 4]
        XCTAssertEqual(
            try MCUmgrParameters(
                response(parameters.encoded, group: .os, command: 6, operation: .readResponse)),
            MCUmgrParameters(bufferSize: 2475, bufferCount: 4))
        let echo = try EchoResponse(
            response(zcborMap([("r", CBORValue.text("hi").encoded)]), group: .os, command: 0))
        XCTAssertEqual(echo.text, "hi")
        let reset = try response([0xBF, 0xFF], group: .os, command: 5)
        XCTAssertNoThrow(try reset.check(answers: .reset(force: false)))
    }

    func testVersion2GroupErrorsNameTheImageManagementCode() throws {
        let payload = zcborMap([("err", zcborMap([("group", [0x01]), ("rc", [0x09])]))])
        let answer = try response(payload, group: .image, command: 1)
        XCTAssertEqual(answer.deviceError, .group(.image, rc: 9))
        XCTAssertEqual(answer.deviceError?.imageManagementCode, .noFreeSlot)
        XCTAssertThrowsError(try ImageUploadResponse(answer)) { error in
            XCTAssertEqual(error as? SMPResponseError, .device(.group(.image, rc: 9)))
            XCTAssertEqual(
                "\(error)", "the device answered with image group (1) error 9 (IMG_MGMT_ERR_NO_FREE_SLOT)")
        }
        let other: CBORValue = ["err": ["group": 8, "rc": 3]]
        XCTAssertEqual(
            "\(try response(other.encoded, group: .image, command: 1).deviceError!)", "group 8 error 3")
    }

    func testVersion1ErrorsCarryTheReason() throws {
        let payload: CBORValue = ["rc": 6, "rsn": "fa erase fail"]
        let answer = try response(payload.encoded, group: .image, command: 1)
        XCTAssertEqual(answer.deviceError, .mcumgr(rc: 6, reason: "fa erase fail"))
        XCTAssertEqual(answer.deviceError?.mcumgrCode, .badState)
        XCTAssertEqual("\(answer.deviceError!)", "MCUmgr error 6 (MGMT_ERR_EBADSTATE): fa erase fail")
        XCTAssertThrowsError(try answer.check(answers: .imageErase(slot: nil)))
    }

    func testUnsupportedVersionSaysWhichToRetry() throws {
        let tooNew = try response(CBORValue.map(["rc": 13]).encoded, group: .image, command: 0)
        XCTAssertEqual(tooNew.deviceError?.versionToRetry, .v1)
        let tooOld = try response(CBORValue.map(["rc": 12]).encoded, group: .image, command: 0)
        XCTAssertEqual(tooOld.deviceError?.versionToRetry, .v2)
        XCTAssertNil(SMPDeviceError.mcumgr(rc: 8, reason: nil).versionToRetry)
    }

    func testReturnCodeNumbersAndNamesMatchZephyr() {
        XCTAssertEqual(MCUmgrReturnCode.allCases.count, 14)
        XCTAssertEqual(MCUmgrReturnCode.notSupported.rawValue, 8)
        XCTAssertEqual(MCUmgrReturnCode.unsupportedTooNew.name, "MGMT_ERR_UNSUPPORTED_TOO_NEW")
        XCTAssertEqual(ImageManagementReturnCode.allCases.count, 35)
        let expected: [(ImageManagementReturnCode, Int, String)] = [
            (.hashNotFound, 8, "HASH_NOT_FOUND"), (.noFreeSlot, 9, "NO_FREE_SLOT"),
            (.invalidOffset, 20, "INVALID_OFFSET"),
            (.invalidLength, 21, "INVALID_LENGTH"), (.invalidImageHeader, 22, "INVALID_IMAGE_HEADER"),
            (.invalidImageHeaderMagic, 23, "INVALID_IMAGE_HEADER_MAGIC"), (.invalidHash, 24, "INVALID_HASH"),
            (.currentVersionIsNewer, 27, "CURRENT_VERSION_IS_NEWER"),
            (.imageAlreadyPending, 28, "IMAGE_ALREADY_PENDING"),
            (.invalidImageTooLarge, 30, "INVALID_IMAGE_TOO_LARGE"),
            (.invalidImageDataOverrun, 31, "INVALID_IMAGE_DATA_OVERRUN"),
            (.imageSettingTestToActiveDenied, 33, "IMAGE_SETTING_TEST_TO_ACTIVE_DENIED"),
            (.activeSlotNotKnown, 34, "ACTIVE_SLOT_NOT_KNOWN"),
        ]
        for (code, number, name) in expected {
            XCTAssertEqual(code.rawValue, number)
            XCTAssertEqual(code.name, "IMG_MGMT_ERR_" + name)
        }
    }

    func testMalformedResponsesAreRefused() throws {
        let request = SMPFrame(
            operation: .write, version: .v2, group: .image, sequence: 1, command: 1, payload: [0xA0])
        XCTAssertThrowsError(try SMPResponse(frame: request))
        XCTAssertThrowsError(try response([0x80], group: .image, command: 1))  // an array
        XCTAssertThrowsError(try response([0xBF], group: .image, command: 1))  // truncated
        XCTAssertThrowsError(try response([], group: .image, command: 1))
        XCTAssertThrowsError(try response(CBORValue.map(["err": 1]).encoded, group: .image, command: 1))
        XCTAssertThrowsError(try response(CBORValue.map(["rc": "x"]).encoded, group: .image, command: 1))
        let wrongCommand = try response(CBORValue.map(["off": 0]).encoded, group: .image, command: 0)
        XCTAssertThrowsError(try ImageUploadResponse(wrongCommand))
        let negative = try response(CBORValue.map(["off": -1]).encoded, group: .image, command: 1)
        XCTAssertThrowsError(try ImageUploadResponse(negative)) {
            XCTAssertEqual($0 as? SMPResponseError, .malformed("off is not an unsigned integer of 32 bits"))
        }
        let shortHash: CBORValue = ["images": [["slot": 0, "version": "1.0.0", "hash": .bytes([1])]]]
        XCTAssertThrowsError(try ImageStateResponse(response(shortHash.encoded, group: .image, command: 0)))
        let badFlag: CBORValue = [
            "images": [["slot": 0, "version": "1", "hash": .bytes(hashA), "active": 1]]
        ]
        XCTAssertThrowsError(try ImageStateResponse(response(badFlag.encoded, group: .image, command: 0)))
    }
}
