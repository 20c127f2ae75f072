import Crypto
import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// Every package of the shared corpus read and compared, fact by fact, with its sidecar. New
/// fixtures are picked up without code changes.
final class FixtureTests: XCTestCase {
    func testEveryFixtureMatchesItsSidecar() throws {
        let sidecars = try Fixtures.sidecars()
        XCTAssertGreaterThan(sidecars.count, 0, "no sidecars found")
        let pem = try Fixtures.publicKeyPEM()
        let hexKey = try Fixtures.publicKeyHex()
        for sidecarURL in sidecars {
            let sidecar = try JSONObject(contentsOf: sidecarURL)
            let zipURL = sidecarURL.deletingPathExtension().appendingPathExtension("zip")
            XCTAssertEqual(try sidecar.object("expect").string("result"), "ok")
            let package: DFUPackage
            do {
                package = try DFUPackage(contentsOf: zipURL)
            } catch {
                XCTFail("\(zipURL.lastPathComponent): \(error)")
                continue
            }
            try checkPackage(package, sidecar, keys: [pem, hexKey], context: zipURL.lastPathComponent)
            try checkZipEntries(zipURL, sidecar, context: zipURL.lastPathComponent)
        }
    }

    private func checkPackage(
        _ package: DFUPackage, _ sidecar: JSONObject, keys: [DFUPublicKey], context: String
    ) throws {
        XCTAssertEqual(package.format.rawValue, try sidecar.string("format"), context)
        if sidecar.isNull("dfu_version") {
            XCTAssertNil(package.dfuVersion, context)
        } else {
            XCTAssertEqual(package.dfuVersion, try sidecar.double("dfu_version"), context)
        }
        XCTAssertEqual(package.images.map(\.kind.rawValue), try sidecar.strings("image_types"), context)
        let expectedImages = try sidecar.objects("images")
        XCTAssertEqual(package.images.count, expectedImages.count, context)
        for (image, expected) in zip(package.images, expectedImages) {
            let where_ = "\(context) \(image.binName)"
            XCTAssertEqual(image.kind.rawValue, try expected.string("manifest_key"), where_)
            XCTAssertEqual(image.binName, try expected.string("bin_file"), where_)
            XCTAssertEqual(image.datName, try expected.string("dat_file"), where_)
            XCTAssertEqual(image.firmware.count, try expected.int("bin_size"), where_)
            XCTAssertEqual(image.sha256.hex, try expected.string("bin_sha256"), where_)
            XCTAssertEqual(Int(image.crc32), try expected.int("bin_crc32"), where_)
            XCTAssertEqual(Int(image.crc16), try expected.int("bin_crc16_ccitt"), where_)
            let dat = try XCTUnwrap(image.initPacket, where_)
            XCTAssertEqual(dat.count, try expected.int("dat_size"), where_)
            XCTAssertEqual(image.initPacketSHA256?.hex, try expected.string("dat_sha256"), where_)
            XCTAssertEqual(dat.hex, try expected.string("dat_hex"), where_)
            if expected.has("sd_size") {
                XCTAssertEqual(image.sdSize.map(Int.init), try expected.int("sd_size"), where_)
                XCTAssertEqual(image.blSize.map(Int.init), try expected.int("bl_size"), where_)
                XCTAssertEqual(
                    Int(image.sizes.softdevice + image.sizes.bootloader), image.firmware.count, where_)
            } else {
                XCTAssertNil(image.sdSize, where_)
                XCTAssertNil(image.blSize, where_)
            }
            let facts = try expected.object("init_packet")
            switch image.decodedInitPacket {
            case .secure(let packet)?:
                try checkSecure(packet, image, facts, keys: keys, context: where_)
            case .legacy(let packet)?:
                try checkLegacy(packet, image, facts, keys: keys, context: where_)
            case nil:
                XCTFail("\(where_): no decoded init packet")
            }
        }
        let app = package.images.first { $0.kind == .application }
        XCTAssertEqual(package.applicationVersion, app?.firmwareVersion, context)
    }

    private func checkSecure(
        _ packet: SecureInitPacket, _ image: DFUImage, _ facts: JSONObject, keys: [DFUPublicKey],
        context: String
    ) throws {
        let dat = image.initPacket!
        XCTAssertEqual(try facts.string("op_code"), "INIT", context)
        XCTAssertEqual(
            packet.signature == nil ? "command" : "signed_command", try facts.string("packet_variant"),
            context)
        XCTAssertEqual(Int(packet.fwVersion), try facts.int("fw_version"), context)
        XCTAssertEqual(Int(packet.hwVersion), try facts.int("hw_version"), context)
        XCTAssertEqual(packet.sdReq.map(Int.init), try facts.ints("sd_req"), context)
        XCTAssertEqual(packet.type.rawValue.uppercased(), try facts.string("type"), context)
        XCTAssertEqual(
            SecureInitPacket.FirmwareType.allCases.firstIndex(of: packet.type), try facts.int("type_value"),
            context)
        XCTAssertEqual(Int(packet.sdSize), try facts.int("sd_size"), context)
        XCTAssertEqual(Int(packet.blSize), try facts.int("bl_size"), context)
        XCTAssertEqual(Int(packet.appSize), try facts.int("app_size"), context)
        XCTAssertEqual(packet.isDebug, try facts.bool("is_debug"), context)
        XCTAssertEqual(packet.hashType.rawValue.uppercased(), try facts.string("hash_type"), context)
        XCTAssertEqual(
            SecureInitPacket.HashType.allCases.firstIndex(of: packet.hashType),
            try facts.int("hash_type_value"), context)
        XCTAssertEqual(packet.hash.hex, try facts.string("hash_hex"), context)
        XCTAssertEqual(packet.presentFields, try facts.strings("present_fields"), context)
        XCTAssertEqual(packet.initCommandRange.lowerBound, try facts.int("init_command_offset"), context)
        XCTAssertEqual(packet.initCommandRange.count, try facts.int("init_command_length"), context)

        let validations = try facts.objects("boot_validation")
        XCTAssertEqual(packet.bootValidation.count, validations.count, context)
        for key in keys {
            let validity = image.verifyBootValidation(with: key)
            for (index, (validation, expected)) in zip(packet.bootValidation, validations).enumerated() {
                XCTAssertEqual(validation.type.rawValue, try expected.string("type"), context)
                XCTAssertEqual(
                    SecureInitPacket.ValidationType.allCases.firstIndex(of: validation.type),
                    try expected.int("type_value"), context)
                XCTAssertEqual(validation.bytes.hex, try expected.string("bytes_hex"), context)
                if expected.has("signature_valid") {
                    let valid = try expected.object("signature_valid").bool("dfu_test_key")
                    XCTAssertEqual(validity[index], valid, context)
                } else {
                    XCTAssertNil(validity[index], context)
                }
            }
        }

        let expectedValidity = try facts.object("signature_valid")
        if facts.isNull("signature_type") {
            XCTAssertNil(packet.signature, context)
            XCTAssertTrue(expectedValidity.values.isEmpty, context)
            XCTAssertFalse(image.isSigned, context)
            for key in keys { XCTAssertNil(image.verifySignature(with: key), context) }
        } else {
            let signature = try XCTUnwrap(packet.signature, context)
            XCTAssertEqual(signature.type.rawValue, try facts.string("signature_type"), context)
            XCTAssertEqual(signature.bytes.hex, try facts.string("signature_hex"), context)
            XCTAssertEqual(signature.offset, try facts.int("signature_offset"), context)
            XCTAssertEqual(Array(dat[signature.offset..<signature.offset + 64]), signature.bytes, context)
            XCTAssertTrue(image.isSigned, context)
            for key in keys {
                XCTAssertEqual(
                    image.verifySignature(with: key), try expectedValidity.bool("dfu_test_key"), context)
            }
        }
        let checks = try facts.object("checks")
        XCTAssertTrue(try checks.bool("hash_matches_bin") && checks.bool("size_matches_bin"), context)
    }

    private func checkLegacy(
        _ packet: LegacyInitPacket, _ image: DFUImage, _ facts: JSONObject, keys: [DFUPublicKey],
        context: String
    ) throws {
        XCTAssertEqual(packet.version.dfuVersion, try facts.double("dfu_version"), context)
        XCTAssertEqual(Int(packet.deviceType), try facts.int("device_type"), context)
        XCTAssertEqual(Int(packet.deviceRevision), try facts.int("device_revision"), context)
        XCTAssertEqual(Int(packet.applicationVersion), try facts.int("application_version"), context)
        XCTAssertEqual(packet.softdeviceRequired.map(Int.init), try facts.ints("softdevice_req"), context)
        XCTAssertEqual(
            packet.extPacketID.map(Int.init),
            facts.isNull("ext_packet_id") ? nil : try facts.int("ext_packet_id"), context)
        XCTAssertEqual(
            packet.firmwareCRC16.map(Int.init),
            facts.isNull("firmware_crc16") ? nil : try facts.int("firmware_crc16"), context)
        XCTAssertEqual(
            packet.firmwareLength.map(Int.init),
            facts.isNull("firmware_length") ? nil : try facts.int("firmware_length"), context)
        XCTAssertEqual(
            packet.firmwareHash?.hex,
            facts.isNull("firmware_hash_hex") ? nil : try facts.string("firmware_hash_hex"), context)
        XCTAssertEqual(
            packet.signature?.hex,
            facts.isNull("init_packet_ecds_hex") ? nil : try facts.string("init_packet_ecds_hex"), context)
        // Every field of the layout table sits where the sidecar says.
        let dat = image.initPacket!
        for field in try facts.objects("layout") {
            let offset = try field.int("offset")
            XCTAssertLessThanOrEqual(offset + (try field.int("size")), dat.count, context)
        }
        if facts.has("signature_valid") {
            for key in keys {
                XCTAssertEqual(
                    image.verifySignature(with: key),
                    try facts.object("signature_valid").bool("dfu_test_key"), context)
            }
        } else {
            for key in keys { XCTAssertNil(image.verifySignature(with: key), context) }
        }
    }

    /// The zip's own facts: every entry by name, declared size, contents' CRC-32, and manifest.json.
    private func checkZipEntries(_ zipURL: URL, _ sidecar: JSONObject, context: String) throws {
        let data = try Data(contentsOf: zipURL)
        try data.withUnsafeBytes { bytes in
            let archive = try ZipArchive(bytes: bytes, fileName: zipURL.path)
            let entries = try sidecar.object("zip").objects("entries")
            XCTAssertEqual(archive.entries.count, entries.count, context)
            for expected in entries {
                let name = try expected.string("name")
                let entry = try XCTUnwrap(archive.entries[name], "\(context): \(name)")
                XCTAssertEqual(Int(entry.declaredSize), try expected.int("uncompressed_size"), context)
                let contents = try XCTUnwrap(try archive.contents(of: name))
                XCTAssertEqual(Int(CRC32.checksum(contents)), try expected.int("crc32"), context)
                if name == "manifest.json" {
                    XCTAssertEqual(contents.count, try sidecar.int("manifest_json_size"), context)
                    XCTAssertEqual(
                        Array(SHA256.hash(data: contents)).hex, try sidecar.string("manifest_json_sha256"),
                        context)
                }
            }
        }
    }
}
