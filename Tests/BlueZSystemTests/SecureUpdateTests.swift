import Crypto
import Foundation
import XCTest

/// Secure DFU through bluetoothd against `dfu-sim` (docs/dfu-sim.md).
final class SecureUpdateTests: DFUThroughBlueZTestCase {
    private let application = "Firmware/secure_app.zip"

    func testButtonlessWithoutBondsBringsTheBootloaderUpAtAddressPlusOne() async throws {
        let (simulator, address) = try await simulate("secure-app")
        let flash = try await flash(application, device: address)
        XCTAssertEqual(flash.status, 0, "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.resultName, "completed")
        XCTAssertEqual(flash.states, Self.buttonlessStates, "\(flash.events)")
        try await simulator.waitForAdvertising(count: 3)
        let advertised = simulator.advertisements.map { [$0["device"] as? String, $0["mode"] as? String] }
        XCTAssertEqual(
            advertised,
            [[address, "application"], [try incremented(address), "bootloader"], [address, "application"]])
        let held = try await simulator.stop()
        XCTAssertEqual(held["mode"] as? String, "application")
        XCTAssertEqual(held["activations"] as? Int, 1)
        try await assertHoldsApplication(of: application, held)
    }

    /// Also an image whose packet count is a multiple of the receipt interval: 12 KiB in 256-byte
    /// packets is 3 objects of 16 packets, with a receipt due on the last packet of each.
    func testButtonlessWithBondsKeepsTheAddressWithWholeReceiptIntervals() async throws {
        let (simulator, address) = try await simulate("secure-app-bonded")
        let flash = try await flash(application, device: address, ["--packet-size", "256", "--prn", "8"])
        XCTAssertEqual(flash.resultName, "completed", "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.states, Self.buttonlessStates, "\(flash.events)")
        try await assertAdvertisedThroughTheBootloaderAtOneAddress(simulator, address)
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1)
        try await assertHoldsApplication(of: application, held)
    }

    func testSoftDeviceBootloaderAndApplicationAcrossTheReboot() async throws {
        let package = "Firmware/secure_sd_bl_app.zip"
        let (simulator, address) = try await simulate("secure")
        let flash = try await flash(package, device: address)
        XCTAssertEqual(flash.status, 0, "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.resultName, "completed")
        XCTAssertEqual(flash.states.first, "connecting")
        XCTAssertEqual(flash.states.last, "completed")
        // Two parts: the second one after the device rebooted into its new bootloader.
        XCTAssertEqual(flash.states.filter { $0 == "uploading" }.count, 2, "\(flash.states)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["mode"] as? String, "application")
        XCTAssertEqual(held["activations"] as? Int, 2)
        try await assertHoldsSoftDeviceAndBootloader(of: package, held)
        try await assertHoldsApplication(of: package, held)
    }

    func testAnUpToDateDeviceIsSkipped() async throws {
        // Firmware/secure_app.zip carries fw_version 20731, "2.7.31".
        let (simulator, address) = try await simulate("secure-app", ["--sim-firmware-version", "2.7.31"])
        let flash = try await flash(application, device: address)
        XCTAssertEqual(flash.status, 0, "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.resultName, "skipped")
        let version = flash.events.first { $0["event"] as? String == "version" }
        XCTAssertEqual(version?["decision"] as? String, "skip")
        // It advertises again after the updater disconnects, but never reset into its bootloader.
        XCTAssertEqual(Set(simulator.advertisements.compactMap { $0["mode"] as? String }), ["application"])
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 0)
    }

    func testResumesAfterTheDeviceDropsTheLinkMidObject() async throws {
        // 5000 bytes is inside the second 4 KiB data object of the 12 KiB application.
        let (simulator, address) = try await simulate("secure", ["--sim-fault", "disconnect-at=5000"])
        let flash = try await flash(application, device: address)
        XCTAssertEqual(flash.status, 0, "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.resultName, "completed")
        XCTAssertGreaterThanOrEqual(flash.result?["retries"] as? Int ?? 0, 1, "\(flash.events)")
        XCTAssertGreaterThanOrEqual(flash.states.filter { $0 == "connecting" }.count, 2, "\(flash.states)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1)
        try await assertHoldsApplication(of: application, held)
    }

    func testAnInitPacketSignedByAnotherKeyIsRejected() async throws {
        let key = FileManager.default.temporaryDirectory.appendingPathComponent("other-key-\(UUID()).pem")
        try P256.Signing.PrivateKey().publicKey.pemRepresentation.write(
            to: key, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: key) }
        let (simulator, address) = try await simulate("secure", ["--sim-public-key", key.path])
        let flash = try await flash(application, device: address, ["--retries", "0"])
        XCTAssertEqual(flash.status, 1, "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.resultName, "failed")
        XCTAssertNotNil(flash.errorName, "\(flash.events)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["mode"] as? String, "bootloader")
        XCTAssertEqual(held["activations"] as? Int, 0)
        XCTAssertNil(image("application", in: held))
    }

    func testCtrlCAbortsAndTheDeviceTakesTheUpdateAgain() async throws {
        // Slow page erases keep the update going long enough to be interrupted.
        let package = application
        let (simulator, address) = try await simulate("secure", ["--sim-fault", "slow-flash=400"])
        let interrupted = try await SystemTestEnvironment.runInterrupted(
            SystemTestEnvironment.dfuUpdateExecutable,
            [
                "flash", SystemTestEnvironment.repositoryFile(package), "--device", address, "--adapter",
                SystemTestEnvironment.centralAdapter, "--json",
            ], afterOutputContaining: "\"progress\"")
        XCTAssertEqual(interrupted.status, 130, interrupted.stdout + interrupted.stderr)
        let result = interrupted.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.last
        XCTAssertEqual(result?["result"] as? String, "aborted", interrupted.stdout)
        let again = try await flash(package, device: address)
        XCTAssertEqual(again.resultName, "completed", "\(again.events) \(again.stderr)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1)
        try await assertHoldsApplication(of: package, held)
    }

    /// What an update through buttonless DFU reports, the same as against the in-process simulator.
    static let buttonlessStates = [
        "connecting", "enabling_dfu_mode", "starting", "uploading", "validating", "disconnecting",
        "completed",
    ]
}
