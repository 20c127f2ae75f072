import Foundation
import TestSupport
import XCTest

/// What `flash` tells a user of an MCUboot update, and what it refuses before connecting
/// (issue 35): keys, activation, packet size, sizes in hex, the wrong family, a lost first answer.
final class FlashSMPCLITests: XCTestCase {
    private let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()

    private func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    private var image: String { path("Firmware/smp_app_1.1.0.bin") }

    private func flash(_ package: String, _ extra: [String]) async throws -> ProcessOutput {
        try await CLIRunner.run(["flash", package] + extra)
    }

    private func result(_ run: ProcessOutput) throws -> JSONObject {
        let last = try XCTUnwrap(try run.jsonLines().last, run.stderr)
        XCTAssertEqual(try last.string("event"), "result")
        return last
    }

    func testPublicKeyIsCheckedBeforeConnectingForBothFamilies() async throws {
        let mcubootKey = path("Firmware/mcuboot_test_key_public.pem")
        let nordicKey = path("Firmware/dfu_test_key_public.pem")
        // an MCUboot image signed with another key than the one given: nothing is sent
        let refused = try await flash(image, ["--simulate", "smp-app", "--public-key", nordicKey, "--json"])
        XCTAssertEqual(refused.status, 65, refused.stderr)
        let error = try refused.errorObject()
        XCTAssertEqual(try error.string("class"), "signature_invalid")
        let message = try error.string("message")
        XCTAssertTrue(message.contains("smp_app_1.1.0.bin"), message)
        let nordic = try await flash(
            path("Firmware/secure_app.zip"),
            ["--simulate", "secure-app", "--public-key", mcubootKey, "--json"])
        XCTAssertEqual(nordic.status, 65, nordic.stderr)
        XCTAssertEqual(try nordic.errorObject().string("class"), "signature_invalid")
        // the keys they were signed with
        let accepted = try await flash(
            image, ["--simulate", "smp-app", "--public-key", mcubootKey, "--json"])
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertEqual(try result(accepted).string("result"), "completed")
        let nordicAccepted = try await flash(
            path("Firmware/secure_app.zip"),
            ["--simulate", "secure-app", "--public-key", nordicKey, "--json"])
        XCTAssertEqual(nordicAccepted.status, 0, nordicAccepted.stderr)
    }

    /// An nRF5340 with one image pair from the sample package: two update cycles through image
    /// 0's slot, the network core's first (docs/mcumgr.md, "One image pair").
    func testAnNRF5340WithOneImagePairTakesBothCoresInTwoCycles() async throws {
        let package = path("Firmware/nrf5340_onepair_dfu_application.zip")
        let inspected = try await CLIRunner.run(["inspect", package, "--json"])
        let images = try XCTUnwrap(try inspected.jsonLines().first).objects("images")
        let run = try await flash(
            package, ["--simulate", "smp-app", "--sim-network-core-one-pair", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let simulator = try XCTUnwrap(try run.jsonLines().last { try $0.string("event") == "simulator" })
        XCTAssertEqual(try simulator.string("network_core_hash"), try images[1].string("hash"))
        XCTAssertEqual(
            try simulator.objects("slots").first.map { try $0.string("hash") }, try images[0].string("hash"))
    }

    /// Both cores of an nRF5340 from the sample package: the network core runs its image after
    /// one update; test-only is refused before anything is sent (docs/mcumgr.md).
    func testAnNRF5340PackageUpdatesBothCores() async throws {
        let package = path("Firmware/nrf5340_dfu_application.zip")
        let device = ["--simulate", "smp-app", "--sim-mcuboot-mode", "overwrite-only", "--sim-network-core"]
        let inspected = try await CLIRunner.run(["inspect", package, "--json"])
        let images = try XCTUnwrap(try inspected.jsonLines().first).objects("images")
        XCTAssertEqual(try images.map { try $0.string("core") }, ["application", "network"])
        let run = try await flash(package, device + ["--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try result(run).string("activation"), "confirmed")
        let simulator = try XCTUnwrap(try run.jsonLines().last { try $0.string("event") == "simulator" })
        XCTAssertEqual(try simulator.string("network_core_hash"), try images[1].string("hash"))
        XCTAssertEqual(
            try simulator.objects("slots").map { try $0.string("hash") }, [try images[0].string("hash")])
        let tested = try await flash(package, device + ["--activation", "test-only", "--json"])
        XCTAssertEqual(tested.status, 1, tested.stderr)
        XCTAssertTrue(
            try result(tested).object("error").string("message").contains("network core"), tested.stderr)
    }

    func testAnUnsignedPackageWithAKeyHasNothingToVerifyAndSaysSo() async throws {
        let run = try await flash(
            path("Firmware/legacy_app.zip"),
            ["--simulate", "legacy", "--public-key", path("Firmware/dfu_test_key_public.pem")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("no image is signed: nothing to verify with"), run.stderr)
    }

    func testInspectOfAnUnsignedImageWithAKeyHasNothingToVerify() async throws {
        let unsigned = path("Tests/MCUmgrTests/Fixtures/unsigned.bin")
        let key = path("Tests/MCUmgrTests/Fixtures/ecdsa-p256.pub.pem")
        let json = try await CLIRunner.run(["inspect", unsigned, "--public-key", key, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let images = try XCTUnwrap(try json.jsonLines().first).objects("images")
        XCTAssertTrue(try XCTUnwrap(images.first).isNull("signature_valid"))
        let human = try await CLIRunner.run(["inspect", unsigned, "--public-key", key])
        XCTAssertEqual(human.status, 0, human.stderr)
        XCTAssertTrue(human.stdoutText.contains("nothing to verify"), human.stdoutText)
    }

    func testTheResultSaysHowTheImageWasActivated() async throws {
        let cases = [
            ("no-reset", "waits_for_reset", "the new image waits for a reset"),
            ("test-only", "on_test", "MCUboot reverts it at the next reset unless it is confirmed"),
            ("test-and-confirm", "confirmed", nil),
        ]
        for (activation, name, sentence) in cases {
            let json = try await flash(
                image, ["--simulate", "smp-app", "--activation", activation, "--json"])
            XCTAssertEqual(json.status, 0, json.stderr)
            XCTAssertEqual(try result(json).string("activation"), name, activation)
            let human = try await flash(image, ["--simulate", "smp-app", "--activation", activation])
            XCTAssertEqual(human.status, 0, human.stderr)
            let last = String(human.stderr.split(separator: "\n").last ?? "")
            XCTAssertTrue(last.hasPrefix("updated C0:DE:00:00:00:10: 49816 bytes"), last)
            XCTAssertTrue(last.contains("of simulated link time"), last)
            if let sentence { XCTAssertTrue(last.contains(sentence), last) }
        }
    }

    func testARevertUnderTestOnlyDoesNotAdviseTestOnly() async throws {
        let run = try await flash(
            image,
            [
                "--simulate", "smp-app", "--activation", "test-only", "--sim-fault", "revert-after-test",
                "--json",
            ])
        XCTAssertEqual(run.status, 1, run.stderr)
        let error = try result(run).object("error")
        XCTAssertEqual(try error.string("name"), "imageReverted")
        let message = try error.string("message")
        XCTAssertFalse(message.contains("--activation test-only"), message)
    }

    func testAFaultTheSimulatedKindDoesNotInjectIsAUsageError() async throws {
        let run = try await flash(image, ["--simulate", "smp-app", "--sim-fault", "crc-error=1", "--json"])
        XCTAssertEqual(run.status, 64, run.stderr)
        let error = try run.errorObject()
        XCTAssertEqual(try error.string("class"), "usage")
        XCTAssertTrue(try error.string("message").contains("secure, secure-app, secure-app-bonded"))
    }

    func testAnMCUbootImageAsIntelHexIsFlashedAsMCUboot() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-hex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hex = directory.appendingPathComponent("zephyr.signed.hex")
        let binary = [UInt8](try Data(contentsOf: URL(fileURLWithPath: image)))
        try IntelHexText.encode(binary, at: 0xC000).write(to: hex, atomically: true, encoding: .utf8)
        let run = try await flash(hex.path, ["--simulate", "smp-app", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try result(run).int("bytes_sent"), binary.count)
    }

    func testTheWrongFamilyIsOneSentenceNamingTheDeviceOnce() async throws {
        let run = try await flash(image, ["--simulate", "secure-app", "--json"])
        XCTAssertEqual(run.status, 1, run.stderr)
        let message = try result(run).object("error").string("message")
        XCTAssertEqual(message.components(separatedBy: "C0:DE:00:00:00:10").count, 2, message)
        XCTAssertTrue(message.contains("give it a Nordic DFU package"), message)
        XCTAssertFalse(message.contains("SMP server"), message)
        let nordic = try await flash(path("Firmware/secure_app.zip"), ["--simulate", "smp-app", "--json"])
        let other = try result(nordic).object("error").string("message")
        XCTAssertEqual(other.components(separatedBy: "C0:DE:00:00:00:10").count, 2, other)
        XCTAssertTrue(
            other.contains("give it an MCUboot image (.bin or .hex) or a dfu_application.zip"), other)
        XCTAssertFalse(other.contains("Nordic DFU bootloader"), other)
    }

    func testALostFirstAnswerIsRetriedWithSMPAdvice() async throws {
        let run = try await flash(
            image,
            ["--simulate", "smp-app", "--sim-fault", "drop-notification=1", "--retries", "3", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try result(run).string("result"), "completed")
        XCTAssertEqual(try result(run).int("retries"), 1)
        let failed = try await flash(
            image,
            ["--simulate", "smp-app", "--sim-fault", "drop-notification=1", "--retries", "0", "--json"])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        let message = try result(failed).object("error").string("message")
        XCTAssertFalse(message.contains("bootloader"), message)
        XCTAssertTrue(message.contains("the upload resumes where it stopped"), message)
    }

    func testAPacketSizeTooSmallForSMPIsAUsageError() async throws {
        let run = try await flash(image, ["--simulate", "smp-app", "--packet-size", "20", "--json"])
        XCTAssertEqual(run.status, 64, run.stderr)
        let error = try run.errorObject()
        XCTAssertEqual(try error.string("class"), "usage")
        let message = try error.string("message")
        XCTAssertTrue(message.contains("at least 60 bytes"), message)
        let fits = try await flash(image, ["--simulate", "smp-app", "--packet-size", "60", "--json"])
        XCTAssertEqual(fits.status, 0, fits.stderr)
    }

    func testSizesAreTakenInHex() async throws {
        let run = try await flash(image, ["--simulate", "smp-app", "--slot-size", "0x76000", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let small = try await flash(image, ["--simulate", "smp-app", "--slot-size", "0x1000", "--json"])
        XCTAssertEqual(small.status, 65, small.stderr)
        XCTAssertEqual(try small.errorObject().string("class"), "too_large_for_slot")
    }

    /// Durations in the JSON are to the millisecond: a RAM-load update's 7.815 s once printed as
    /// `7.8149999999999995`.
    func testDurationsAreGivenToTheMillisecond() async throws {
        let run = try await flash(
            path("Firmware/dfu_application.zip"),
            ["--simulate", "smp-app", "--sim-mcuboot-mode", "ram-load", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(
            run.stdoutText.split(separator: "\n").last { $0.contains("\"event\":\"result\"") })
        let value = try XCTUnwrap(line.firstMatch(of: /"duration_seconds":([0-9.eE+-]+)/)?.1, String(line))
        XCTAssertNotNil(value.wholeMatch(of: /[0-9]+(\.[0-9]{1,3})?/), "duration_seconds \(value)")
    }
}
