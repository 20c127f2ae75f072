import BlueZ
import Foundation
import GATT
import SimulatorProcess
import TestSupport
import XCTest

/// Whole updates through real bluetoothd: `dfu-sim` serves a simulated device on hci1 (or
/// another peripheral adapter) and the built `dfu-update` updates it from hci0. Afterwards the simulator is stopped and the centrals
/// forget every address it used (so that no GATT cache or link outlives a test). No output of
/// the programs a test ran may hold one of its `secrets`.
class DFUThroughBlueZTestCase: XCTestCase {
    private var simulators: [DFUSimProcess] = []
    /// Passkeys the test gives its programs: every `flash` run's output, every simulator's error
    /// output and events, and what the test adds with `searchForSecrets(_:)` are searched for them
    /// when the test ends.
    var secrets: [String] = []
    private var outputs: [String] = []

    override func setUp() async throws {
        try await SystemTestEnvironment.requireBlueZ()
    }

    override func tearDown() async throws {
        await SystemTestEnvironment.printControllerState(ifFailed: testRun, test: name)
        let addresses = Set(simulators.flatMap { $0.advertisements.compactMap { $0["device"] as? String } })
        for simulator in simulators {
            _ = try? await simulator.stop()
            outputs += [simulator.errorOutput] + simulator.events.map { "\($0)" }
        }
        for secret in secrets {
            for output in outputs { XCTAssertFalse(output.contains(secret), "a secret in: \(output)") }
        }
        simulators = []
        outputs = []
        // (tearDown runs after a skipped setUp too: nothing to clean then)
        guard !addresses.isEmpty else { return }
        for adapter in centralAdapters {
            let central = try await BlueZCentral(adapter: adapter)
            for case let address? in addresses.map(BluetoothAddress.init) {
                try? await central.removeDevice(address: address)
            }
        }
    }

    /// The adapters the test updated from, which forget the simulators' addresses afterwards.
    var centralAdapters = [SystemTestEnvironment.centralAdapter]

    /// Adds the output of a program the test ran itself to what is searched for `secrets`.
    func searchForSecrets(_ output: String) { outputs.append(output) }

    /// Starts `dfu-sim --simulate KIND ARGUMENTS…` on `adapter` and waits until it advertises;
    /// returns it and the address it advertises at.
    func simulate(
        _ kind: String, _ arguments: [String] = [], adapter: String = SystemTestEnvironment.peripheralAdapter
    ) async throws -> (DFUSimProcess, String) {
        let simulator = try startSimulator(kind, arguments, adapter: adapter)
        let advertising = try await simulator.waitForAdvertising()
        return (simulator, try XCTUnwrap(advertising["device"] as? String))
    }

    /// Starts `dfu-sim --simulate KIND ARGUMENTS…` on `adapter`, stopped when the test ends.
    func startSimulator(_ kind: String, _ arguments: [String] = [], adapter: String) throws
        -> DFUSimProcess
    {
        let simulator = try DFUSimProcess(kind, arguments, adapter: adapter)
        simulators.append(simulator)
        return simulator
    }

    /// The outcome of one `dfu-update flash --json` run.
    struct Flash {
        var status: Int32
        var events: [[String: Any]]
        var stderr: String

        init(_ output: ProcessOutput) {
            status = output.status
            events = output.stdoutText.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            stderr = output.stderr
        }

        /// The `state` values in order, repeats of the same state folded.
        var states: [String] {
            events.compactMap { $0["event"] as? String == "state" ? $0["state"] as? String : nil }
                .reduce(into: []) { folded, state in if folded.last != state { folded.append(state) } }
        }

        var result: [String: Any]? { events.last { $0["event"] as? String == "result" } }
        var resultName: String? { result?["result"] as? String }
        var errorName: String? { (result?["error"] as? [String: Any])?["name"] as? String }
    }

    /// Runs `dfu-update flash PACKAGE --device DEVICE --adapter hci0 --json ARGUMENTS…`;
    /// `package` is relative to the repository.
    func flash(
        _ package: String, device: String, _ arguments: [String] = [], timeout: Duration = .seconds(180)
    )
        async throws -> Flash
    {
        let output = try await ProcessRunner.run(
            SystemTestEnvironment.dfuUpdateExecutable, flashArguments(package, device: device, arguments),
            timeout: timeout)
        searchForSecrets(output.stdoutText + output.stderr)
        return Flash(output)
    }

    /// The arguments of `dfu-update` for `flash(_:device:_:timeout:)`.
    func flashArguments(_ package: String, device: String, _ arguments: [String]) -> [String] {
        [
            "flash", SystemTestEnvironment.repositoryFile(package), "--device", device, "--adapter",
            SystemTestEnvironment.centralAdapter, "--json",
        ] + arguments
    }

    /// The image of `type` in a `simulator` event.
    func image(_ type: String, in simulatorEvent: [String: Any]) -> [String: Any]? {
        (simulatorEvent["images"] as? [String: Any])?[type] as? [String: Any]
    }

    /// The address with its last octet incremented, wrapping without carry.
    func incremented(_ address: String) throws -> String {
        try XCTUnwrap(BluetoothAddress(address)).incremented.description
    }
}

extension DFUThroughBlueZTestCase {
    /// The images of a package as `dfu-update inspect --json` describes them, in send order.
    func packageImages(_ package: String) async throws -> [[String: Any]] {
        let result = try await SystemTestEnvironment.run(
            SystemTestEnvironment.dfuUpdateExecutable,
            ["inspect", SystemTestEnvironment.repositoryFile(package), "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        return try XCTUnwrap(report["images"] as? [[String: Any]])
    }

    /// Asserts that the device advertised as the application, as the bootloader and as the
    /// application again, all at `address` (buttonless with bonds; an SDK 11 application hands
    /// its peer data to the bootloader).
    func assertAdvertisedThroughTheBootloaderAtOneAddress(
        _ simulator: DFUSimProcess, _ address: String, file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        try await simulator.waitForAdvertising(count: 3)
        let advertised = simulator.advertisements.map { [$0["device"] as? String, $0["mode"] as? String] }
        XCTAssertEqual(
            advertised, [[address, "application"], [address, "bootloader"], [address, "application"]],
            file: file, line: line)
    }

    /// Asserts that the device holds the SoftDevice and bootloader of the package's first part,
    /// by size.
    func assertHoldsSoftDeviceAndBootloader(
        of package: String, _ simulatorEvent: [String: Any], file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let sent = try await packageImages(package).first
        XCTAssertEqual(
            image("softdevice", in: simulatorEvent)?["size"] as? Int, sent?["sd_size"] as? Int, file: file,
            line: line)
        XCTAssertEqual(
            image("bootloader", in: simulatorEvent)?["size"] as? Int, sent?["bl_size"] as? Int, file: file,
            line: line)
    }

    /// Asserts that the device holds the package's application image, byte for byte.
    func assertHoldsApplication(
        of package: String, _ simulatorEvent: [String: Any], file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let sent = try await packageImages(package).last { $0["type"] as? String == "application" }
        let held = image("application", in: simulatorEvent)
        XCTAssertEqual(
            held?["sha256"] as? String, sent?["sha256"] as? String, "\(simulatorEvent)", file: file,
            line: line)
        XCTAssertEqual(
            held?["size"] as? Int, sent?["size"] as? Int, "\(simulatorEvent)", file: file, line: line)
    }
}
