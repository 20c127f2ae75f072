import Foundation
import TestSupport
import XCTest

/// `dfu-update inspect` as users run it: the binary built next to this test bundle, its JSON
/// compared with a fixture's sidecar, its exit codes and error objects.
final class InspectCLITests: XCTestCase {
    private func run(_ arguments: [String]) async throws -> ProcessOutput {
        try await CLIRunner.run(arguments)
    }

    func testJSONMatchesSidecar() async throws {
        for id in ["secure/secure_sd_bl_app_signed", "legacy/legacy_app_dfu_ver_0.7_nordic"] {
            let sidecar = try JSONObject(contentsOf: Fixtures.url(id + ".json"))
            let path = try Fixtures.url(id + ".zip").path
            let key = try Fixtures.url("keys/dfu_test_key_public_hex.txt").path
            let result = try await run(["inspect", path, "--public-key", key, "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = try JSONObject(try JSONSerialization.jsonObject(with: result.stdout))
            XCTAssertEqual(try report.string("file"), path)
            XCTAssertEqual(try report.string("format"), try sidecar.string("format"))
            if sidecar.isNull("dfu_version") {
                XCTAssertTrue(report.isNull("dfu_version"))
            } else {
                XCTAssertEqual(try report.double("dfu_version"), try sidecar.double("dfu_version"))
            }
            let images = try report.objects("images")
            let expected = try sidecar.objects("images")
            XCTAssertEqual(images.count, expected.count)
            for (image, facts) in zip(images, expected) {
                try compare(image, facts)
            }
        }
    }

    private func compare(_ image: JSONObject, _ facts: JSONObject) throws {
        XCTAssertEqual(try image.string("type"), try facts.string("manifest_key"))
        XCTAssertEqual(try image.string("bin_file"), try facts.string("bin_file"))
        XCTAssertEqual(try image.string("dat_file"), try facts.string("dat_file"))
        XCTAssertEqual(try image.int("size"), try facts.int("bin_size"))
        XCTAssertEqual(try image.int("crc32"), try facts.int("bin_crc32"))
        XCTAssertEqual(try image.int("crc16"), try facts.int("bin_crc16_ccitt"))
        XCTAssertEqual(try image.string("sha256"), try facts.string("bin_sha256"))
        for key in ["sd_size", "bl_size"] {
            if facts.has(key) {
                XCTAssertEqual(try image.int(key), try facts.int(key))
            } else {
                XCTAssertTrue(image.isNull(key), key)
            }
        }
        let packet = try image.object("init_packet")
        let expected = try facts.object("init_packet")
        XCTAssertEqual(try packet.int("size"), try facts.int("dat_size"))
        XCTAssertEqual(try packet.string("sha256"), try facts.string("dat_sha256"))
        if expected.has("packet_variant") {
            let signed = try expected.string("packet_variant") == "signed_command"
            XCTAssertEqual(try packet.bool("signed"), signed)
            if signed {
                XCTAssertEqual(
                    try packet.bool("signature_valid"),
                    try expected.object("signature_valid").bool("dfu_test_key"))
            } else {
                XCTAssertTrue(packet.isNull("signature_valid"))
            }
            for key in ["fw_version", "hw_version", "sd_size", "bl_size", "app_size"] {
                XCTAssertEqual(try packet.int(key), try expected.int(key), key)
            }
            XCTAssertEqual(try packet.ints("sd_req"), try expected.ints("sd_req"))
            XCTAssertEqual(try packet.string("type"), try expected.string("type").lowercased())
            XCTAssertEqual(try packet.string("hash_type"), try expected.string("hash_type").lowercased())
            XCTAssertEqual(try packet.string("hash"), try expected.string("hash_hex"))
            XCTAssertEqual(try packet.bool("is_debug"), try expected.bool("is_debug"))
        } else {
            XCTAssertFalse(try packet.bool("signed"))
            XCTAssertTrue(packet.isNull("signature_valid"))
            XCTAssertEqual(try packet.int("device_type"), try expected.int("device_type"))
            XCTAssertEqual(try packet.int("device_revision"), try expected.int("device_revision"))
            XCTAssertEqual(try packet.int("application_version"), try expected.int("application_version"))
            XCTAssertEqual(try packet.ints("sd_req"), try expected.ints("softdevice_req"))
            for (ours, theirs) in [("crc16", "firmware_crc16"), ("firmware_length", "firmware_length")] {
                if expected.isNull(theirs) {
                    XCTAssertTrue(packet.isNull(ours), ours)
                } else {
                    XCTAssertEqual(try packet.int(ours), try expected.int(theirs), ours)
                }
            }
            if expected.isNull("firmware_hash_hex") {
                XCTAssertTrue(packet.isNull("firmware_hash"))
            } else {
                XCTAssertEqual(try packet.string("firmware_hash"), try expected.string("firmware_hash_hex"))
            }
        }
    }

    func testSignatureValidIsNullWithoutKey() async throws {
        let result = try await run([
            "inspect", try Fixtures.url("secure/secure_app_20_hex_signed.zip").path, "--json",
        ])
        XCTAssertEqual(result.status, 0)
        let image = try JSONObject(try JSONSerialization.jsonObject(with: result.stdout)).objects("images")[0]
        let packet = try image.object("init_packet")
        XCTAssertTrue(try packet.bool("signed"))
        XCTAssertTrue(packet.isNull("signature_valid"))
    }

    func testHumanTable() async throws {
        let result = try await run(["inspect", try Fixtures.url("secure/secure_sd_bl_app_signed.zip").path])
        XCTAssertEqual(result.status, 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("softdevice_bootloader"), text)
        XCTAssertTrue(text.contains("0xcc5dcf98"), text)  // CRC32 3428700056
        XCTAssertTrue(text.contains("signed"), text)
    }

    func testExitCodesAndErrorObjects() async throws {
        let missing = try await run(["inspect", "/nonexistent/package.zip", "--json"])
        XCTAssertEqual(missing.status, 66)
        let missingError = try JSONObject(try JSONSerialization.jsonObject(with: missing.stdout)).object(
            "error")
        XCTAssertEqual(try missingError.string("class"), "file_not_found")
        XCTAssertTrue(try missingError.string("message").contains("/nonexistent/package.zip"))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appendingPathComponent("broken.zip")
        var entries = TestPackages.appEntries()
        entries[1].crc32 = 0
        try Data(TestZip(entries).bytes).write(to: broken)
        let invalid = try await run(["inspect", broken.path, "--json"])
        XCTAssertEqual(invalid.status, 65)
        let invalidError = try JSONObject(try JSONSerialization.jsonObject(with: invalid.stdout)).object(
            "error")
        XCTAssertEqual(try invalidError.string("class"), "invalid_zip")
        XCTAssertTrue(try invalidError.string("message").contains("broken.zip"))
        XCTAssertTrue(try invalidError.string("message").contains("app.bin"))

        let human = try await run(["inspect", broken.path])
        XCTAssertEqual(human.status, 65)
        XCTAssertTrue(human.stderr.contains("broken.zip"), human.stderr)

        let garbageKey = directory.appendingPathComponent("key.txt")
        try Data("not a key".utf8).write(to: garbageKey)
        let badKey = try await run(["inspect", broken.path, "--public-key", garbageKey.path, "--json"])
        XCTAssertEqual(badKey.status, 64)
        XCTAssertTrue(String(decoding: badKey.stdout, as: UTF8.self).contains("key.txt"))
        let noKey = try await run([
            "inspect", broken.path, "--public-key", directory.appendingPathComponent("none.pem").path,
        ])
        XCTAssertEqual(noKey.status, 66)

        let noPackage = try await run(["inspect"])
        XCTAssertEqual(noPackage.status, 64)
        let unknownFlag = try await run(["inspect", broken.path, "--no-such-flag"])
        XCTAssertEqual(unknownFlag.status, 64)
    }
}
