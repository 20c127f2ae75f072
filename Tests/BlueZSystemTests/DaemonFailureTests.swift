import BlueZ
import DFUSupport
import Foundation
import GATT
import SimulatorProcess
import TestSupport
import XCTest

/// The daemon and the adapter failing under a Secure update (docs/reliability.md): the fault
/// comes while the sixth of the 100 KiB image's 25 data objects waits for its Execute's answer;
/// the update must end with the contract's exit code and `DFUError` within a bound, never hang,
/// and a second run must then complete, resuming where the device kept the transfer (a `dfu-sim`
/// that lost its bluetoothd keeps nothing: see `testBluetoothdKilledMidTransfer`).
final class DaemonFailureTests: DFUThroughBlueZTestCase {
    /// 100 KiB in 25 data objects: several seconds of transfer in the VM.
    private let package = "Tests/Fixtures/secure/secure_app_100k_hex_signed_bootval_ecdsa.zip"
    /// The fault comes at the seventh Execute dfu-sim takes (the init packet's is the first), once
    /// the first five data objects (20,480 bytes) were executed.
    private let faultAt = (execute: 7, executedBytes: 20_480)
    /// The faulted device's page erase in ms: an object's Execute waits about this long for the
    /// flash, with no write in flight, and that is when the fault comes (see `flash`).
    private let slowEraseMs = 500
    /// The faulted device's flash word write in µs (nRF52: 41): an object's 1,024 words take
    /// 0.3 s to write, so that the Execute's answer is still held back when the updater, slowed
    /// down on a loaded machine, streams an object more slowly than the erase takes.
    private let slowWordWriteUs = 300
    /// How long after the fault the updater may take to give up: its connection attempts
    /// (3 × 10 s) and the bootloader scan (10 s), with room for the emulator.
    private let giveUpBound = Duration.seconds(60)

    override func tearDown() async throws {
        // Later test classes need bluetoothd with every adapter powered, whatever happened here
        // (bluetoothd 5.66 itself may have crashed); the simulators are stopped in any case.
        var notRestored: (any Error)?
        if ProcessInfo.processInfo.environment["DFU_UPDATE_VM"] == "1" {
            do { try await SystemTestEnvironment.restoreBluetoothd() } catch { notRestored = error }
        }
        try await super.tearDown()
        if let notRestored { throw notRestored }
    }

    func testBluetoothdKilledMidTransfer() async throws {
        let (simulator, address) = try await simulateTraced()
        let failed = try await flash(simulator, at: address) {
            try await SystemTestEnvironment.killBluetoothd()
        }
        assertFailed(failed, exitCode: 69, error: "bluetoothDisabled")
        try await SystemTestEnvironment.restoreBluetoothd()
        // dfu-sim served the device through the bluetoothd that died: its GATT application and
        // advertisements are gone with it. What it held is the device's state; a new dfu-sim
        // serves a device in its bootloader again (without the partial transfer).
        let held = try await simulator.stop()
        XCTAssertEqual(held["mode"] as? String, "bootloader")
        XCTAssertEqual(held["activations"] as? Int, 0)
        XCTAssertNil(image("application", in: held), "a partial image was activated: \(held)")
        let (restarted, sameAddress) = try await simulate("secure")
        XCTAssertEqual(sameAddress, address)
        let again = try await flash(package, device: address)
        XCTAssertEqual(again.status, 0, "\(again.events) \(again.stderr)")
        try await assertHoldsApplication(of: package, try await restarted.stop())
    }

    func testAdapterPoweredOffMidTransfer() async throws {
        let (simulator, address) = try await simulateTraced()
        let failed = try await flash(simulator, at: address) {
            try await SystemTestEnvironment.setPower(of: 0, on: false)
        }
        assertFailed(failed, exitCode: 69, error: "bluetoothDisabled")
        try await SystemTestEnvironment.setPower(of: 0, on: true)
        try await assertSecondRunResumes(on: simulator, at: address)
    }

    /// With `--retries 0`, so that the lost device object ends the run (with retries it is a
    /// lost link the updater reconnects after).
    func testDeviceRemovedFromBluetoothdMidTransfer() async throws {
        let (simulator, address) = try await simulateTraced()
        let central = try await BlueZCentral(adapter: SystemTestEnvironment.centralAdapter)
        let failed = try await flash(simulator, at: address, ["--retries", "0"]) {
            try await central.removeDevice(address: XCTUnwrap(BluetoothAddress(address)))
        }
        assertFailed(failed, exitCode: 1, error: "deviceDisconnected")
        try await assertSecondRunResumes(on: simulator, at: address)
    }

    // MARK: -

    /// A Secure device that reports the writes it takes and erases slowly.
    private func simulateTraced() async throws -> (DFUSimProcess, String) {
        try await simulate(
            "secure",
            [
                "--trace", "--sim-fault", "slow-flash=\(slowEraseMs)", "--sim-word-write-us",
                "\(slowWordWriteUs)",
            ])
    }

    /// Runs the update of `package`, runs `fault` once `simulator` took the Execute of
    /// `faultAt`, and returns the run; fails the test unless the updater ended within
    /// `giveUpBound` of the fault.
    ///
    /// Then bluetoothd has answered every write, and the updater waits for the Execute's answer,
    /// which the slow flash holds back: nothing is in flight. bluetoothd 5.66 crashes when a link
    /// drops while it waits for a GATT application's answer to a write (control point requests
    /// and packets alike; a timeout or the application's unregistration later touches the freed
    /// link; docs/dfu-sim.md), and the application here is `dfu-sim` on the same bluetoothd.
    private func flash(
        _ simulator: DFUSimProcess, at address: String, _ arguments: [String] = [],
        injecting fault: @escaping @Sendable () async throws -> Void
    ) async throws -> Flash {
        let arguments = flashArguments(package, device: address, arguments)
        let ended = Locked(false)
        let run = Task {
            defer { ended.withLock { $0 = true } }
            return try await ProcessRunner.run(
                SystemTestEnvironment.dfuUpdateExecutable, arguments, timeout: .seconds(150))
        }
        let execute = try await simulator.waitForEvent(
            faultAt.execute, timeout: .seconds(150), while: { !ended.withLock { $0 } },
            matching: { $0["event"] as? String == "write" && ($0["value"] as? String) == "04" })
        var injectedAt: ContinuousClock.Instant?
        if execute != nil {
            injectedAt = .now
            try await fault()
        }
        let flash = Flash(try await run.value)
        let faulted = try XCTUnwrap(
            injectedAt, "dfu-sim never took Execute \(faultAt.execute): \(flash.events) \(flash.stderr)")
        let answerDue = (execute?["notifies_after_ms"] as? [Double])?.first ?? 0
        XCTAssertGreaterThan(
            answerDue, 100, "the Execute was answered before the fault could come: \(execute ?? [:])")
        let tookToEnd = ContinuousClock.now - faulted
        print(
            "\(name): the Execute's answer was due \(answerDue) ms later; the updater ended \(tookToEnd) after the fault"
        )
        XCTAssertLessThan(tookToEnd, giveUpBound, "\(flash.events)")
        return flash
    }

    private func assertFailed(
        _ flash: Flash, exitCode: Int32, error: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(flash.status, exitCode, "\(flash.events) \(flash.stderr)", file: file, line: line)
        XCTAssertEqual(flash.resultName, "failed", "\(flash.events)", file: file, line: line)
        XCTAssertEqual(flash.errorName, error, "\(flash.events)", file: file, line: line)
        let message = (flash.result?["error"] as? [String: Any])?["message"] as? String ?? ""
        XCTAssertFalse(message.isEmpty, "no error message: \(flash.events)", file: file, line: line)
        // the result is the last line
        XCTAssertEqual(flash.events.last?["event"] as? String, "result", file: file, line: line)
    }

    /// A second run completes and starts where the first stopped: the device kept the init
    /// packet and the data objects it had validated.
    private func assertSecondRunResumes(
        on simulator: DFUSimProcess, at address: String, file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let again = try await flash(package, device: address)
        XCTAssertEqual(again.status, 0, "\(again.events) \(again.stderr)", file: file, line: line)
        XCTAssertEqual(again.resultName, "completed", file: file, line: line)
        let resumedAt = again.events.first { $0["event"] as? String == "progress" }?["bytes_sent"] as? Int
        XCTAssertGreaterThanOrEqual(
            resumedAt ?? 0, faultAt.executedBytes, "the second run did not resume: \(again.events)",
            file: file,
            line: line)
        let held = try await simulator.stop()
        XCTAssertEqual(held["activations"] as? Int, 1, file: file, line: line)
        try await assertHoldsApplication(of: package, held, file: file, line: line)
    }
}
