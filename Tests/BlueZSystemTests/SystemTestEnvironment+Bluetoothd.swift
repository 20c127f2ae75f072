import BlueZ
import Foundation
import XCTest

/// bluetoothd's life in the VM, through scripts/vm/bluetoothd-control.sh (by the pid
/// guest-init.sh recorded, never by name).
extension SystemTestEnvironment {
    /// Ends bluetoothd with SIGKILL, as a crash would; returns once it is gone.
    static func killBluetoothd() async throws {
        try await controlBluetoothd("kill", timeout: .seconds(20))
    }

    /// Starts bluetoothd again unless it runs, waits until it lists every virtual controller's
    /// adapter and powers them all on: what later tests expect to find. Throws unless the
    /// central's and the peripheral's adapters (btvirt's controllers, which outlive bluetoothd)
    /// are there and powered.
    static func restoreBluetoothd() async throws {
        try await controlBluetoothd("restore", timeout: .seconds(90))
        for adapter in [centralAdapter, peripheralAdapter] {
            // (throws GATTError.bluetoothUnavailable for a missing or unpowered adapter)
            _ = try await BlueZCentral(adapter: adapter)
        }
    }

    /// Powers adapter `index` on or off through the kernel's management interface; bluetoothd
    /// follows (`Adapter1.Powered`).
    static func setPower(of index: Int, on: Bool) async throws {
        let result = try await run(
            URL(fileURLWithPath: "/usr/bin/btmgmt"), ["--index", String(index), "power", on ? "on" : "off"],
            timeout: .seconds(20))
        XCTAssertEqual(result.status, 0, "btmgmt power: \(result.stdout) \(result.stderr)")
    }

    /// Lets adapter `index` accept pairings that bond, or makes it refuse them (`btmgmt
    /// bondable`): the kernel's SMP then answers a pairing request asking for a bond with "Pairing
    /// Not Supported", as a device not in its pairing mode does.
    static func setBondable(of index: Int, _ bondable: Bool) async throws {
        let result = try await run(
            URL(fileURLWithPath: "/usr/bin/btmgmt"),
            ["--index", String(index), "bondable", bondable ? "on" : "off"],
            timeout: .seconds(20))
        XCTAssertEqual(result.status, 0, "btmgmt bondable: \(result.stdout) \(result.stderr)")
    }

    /// The `bluetoothctl` of the BlueZ the VM runs: the one built beside another bluetoothd
    /// (`scripts/vm/run.sh --bluez`, which names it in `DFU_VM_BLUETOOTHCTL`), else the host's.
    static var bluetoothctl: URL {
        URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["DFU_VM_BLUETOOTHCTL"]
                ?? "/usr/bin/bluetoothctl")
    }

    /// The address of adapter `index` (`btmgmt info`), e.g. for `bluetoothctl select`.
    static func address(of index: Int) async throws -> String {
        let result = try await run(
            URL(fileURLWithPath: "/usr/bin/btmgmt"), ["--index", String(index), "info"], timeout: .seconds(20)
        )
        let found = result.stdout.firstMatch(of: /addr ([0-9A-F:]{17})/)
        return try XCTUnwrap(found.map { String($0.1) }, "btmgmt info: \(result.stdout) \(result.stderr)")
    }

    private static func controlBluetoothd(_ command: String, timeout: Duration) async throws {
        let script = URL(fileURLWithPath: repositoryFile("scripts/vm/bluetoothd-control.sh"))
        let result = try await run(script, [command], timeout: timeout)
        guard result.status == 0 else {
            throw BluetoothdControlFailed(command: command, output: result.stdout + result.stderr)
        }
    }
}

/// scripts/vm/bluetoothd-control.sh failed.
struct BluetoothdControlFailed: Error, CustomStringConvertible {
    var command: String
    var output: String
    var description: String { "bluetoothd-control.sh \(command) failed: \(output)" }
}
