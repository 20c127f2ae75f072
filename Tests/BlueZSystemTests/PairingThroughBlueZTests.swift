import Foundation
import SimulatorProcess
import XCTest

/// Pairing through real bluetoothd (docs/pairing.md): `dfu-update flash --pair` against
/// `dfu-sim --sim-security …` on the same bluetoothd, each side with its own agent. An
/// authenticated SMP device is paired with its fixed passkey and updated; an encrypted one with
/// Just Works; a wrong passkey fails once; no output holds a passkey; the bond the run made is
/// removed. A Secure DFU device with bonds is updated on the bond its bootloader keeps.
final class PairingThroughBlueZTests: DFUThroughBlueZTestCase {
    private let image = "Firmware/smp_app_1.1.0.bin"
    private let passkey = "314159"

    override func setUp() async throws {
        try await super.setUp()
        setenv("DFU_TEST_DEVICE_PASSKEY", passkey, 1)
        setenv("DFU_TEST_WRONG_PASSKEY", "271828", 1)
        secrets = [passkey]
    }

    func testAnAuthenticatedSMPDeviceIsPairedWithItsPasskeyAndUpdated() async throws {
        let (simulator, address) = try await simulate(
            "smp-app",
            ["--sim-security", "authenticated", "--sim-passkey-env", "DFU_TEST_DEVICE_PASSKEY"])
        let run = try await flash(
            image, device: address, ["--pair", "--passkey-env", "DFU_TEST_DEVICE_PASSKEY"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1, "\(held)")
        try await assertNoBond(address)
    }

    func testAnEncryptedDeviceIsPairedWithJustWorks() async throws {
        let (_, address) = try await simulate("smp-app", ["--sim-security", "encrypt"])
        let run = try await flash(image, device: address, ["--pair"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        try await assertNoBond(address)
    }

    func testAWrongPasskeyFailsOnceAsAuthenticationFailed() async throws {
        let (_, address) = try await simulate(
            "smp-app",
            ["--sim-security", "authenticated", "--sim-passkey-env", "DFU_TEST_DEVICE_PASSKEY"])
        let run = try await flash(
            image, device: address, ["--pair", "--passkey-env", "DFU_TEST_WRONG_PASSKEY"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(run.errorName, "authenticationFailed", "\(run.events) \(run.stderr)")
        let attempts = run.events.filter {
            ($0["message"] as? String)?.contains("connection attempt") == true
        }
        XCTAssertEqual(attempts.count, 0, "\(run.events)")
    }

    func testAFleetPairsADeviceWithThePasskeySourceItsInventoryNames() async throws {
        let (simulator, address) = try await simulate(
            "smp-app",
            ["--sim-security", "authenticated", "--sim-passkey-env", "DFU_TEST_DEVICE_PASSKEY"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inventory = folder.appendingPathComponent("fleet.json")
        let entry: [String: Any] = [
            "device": address, "adapter": SystemTestEnvironment.centralAdapter,
            "package": SystemTestEnvironment.repositoryFile(image), "security": "authenticated",
            "passkey_env": "DFU_TEST_DEVICE_PASSKEY",
        ]
        try JSONSerialization.data(withJSONObject: ["devices": [entry]]).write(to: inventory)
        let state = folder.appendingPathComponent("state.json")
        let run = try await SystemTestEnvironment.run(
            SystemTestEnvironment.dfuUpdateExecutable,
            // --pair: with the device served by the same bluetoothd, pairing must start from Pair (the
            // device's side needs dfu-sim's default agent; docs/pairing.md)
            ["fleet", inventory.path, "--pair", "--json", "--state", state.path], timeout: .seconds(240))
        searchForSecrets(run.stdout + run.stderr)
        // the state file is an SQLite store: its bytes, and those of any journal beside it
        let stored = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasPrefix(state.lastPathComponent)
        }
        XCTAssertFalse(stored.isEmpty, "no state file in \(folder.path)")
        for name in stored {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            searchForSecrets(String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertEqual(run.status, 0, "\(run.stdout) \(run.stderr)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1, "\(held)")
        try await assertNoBond(address)
    }

    /// Secure DFU buttonless with bonds (docs/engine.md): the application's 8EC90004 and the
    /// bootloader's characteristics need an encrypted link; the Just Works bond made with the
    /// application encrypts the bootloader's link at the same address, and the bond this run
    /// made is removed only once the update is over.
    func testASecureDeviceWithBondsIsUpdatedOnTheBondItsBootloaderKeeps() async throws {
        let (simulator, address) = try await simulate("secure-app-bonded", ["--sim-security", "encrypt"])
        let run = try await flash(
            "Firmware/secure_app.zip", device: address, ["--pair", "--log-level", "info"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1, "\(held)")
        try await assertNoBond(address)
        // which way the bootloader's table was found (`UpdateRun.enterBootloader`): the kept
        // table and a Service Changed, the kept table discarded, or a table read afresh
        let waited = run.stderr.contains("waiting for Service Changed")
        let changed = run.stderr.contains("changed its services")
        let discarded = run.stderr.contains("discovering them again")
        XCTAssertFalse(changed && discarded, run.stderr)
        XCTAssertEqual(waited, changed || discarded, run.stderr)
        print(
            "bootloader's table: \(changed ? "Service Changed" : discarded ? "kept table discarded" : "read afresh")"
        )
    }

    /// bluetoothd's device list on the central's adapter holds no bond for `address`.
    private func assertNoBond(_ address: String) async throws {
        let result = try await SystemTestEnvironment.run(
            SystemTestEnvironment.bluetoothctl, ["info", address])
        XCTAssertFalse(result.stdout.contains("Paired: yes"), result.stdout)
    }
}
