import ArgumentParser
import BlueZ
import DFUFleet
import DFURollout
import DFUSimulator
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine

/// What `dfu-update fleet` needs before it starts: the inventory, its packages, the adapters
/// (BlueZ adapters for real devices, one simulated adapter for the entries with `simulate`) and
/// the state file. Every failure is a `CommandFailure` in the contract's classes.
struct FleetSetup {
    /// The adapter the inventory's simulated devices are put on.
    static let simulatedAdapter = "simulated"

    let fleet: Fleet
    /// The central of each simulated device, by its inventory name.
    let simulated: [String: SimulatedCentral]

    init(_ command: FleetCommand) async throws {
        let url = URL(fileURLWithPath: command.inventory)
        var inventory = try Self.inventory(at: command.inventory)
        if command.device.update.force { inventory.defaults.force = true }
        let packages = try Self.packages(inventory.packagePaths)
        try Self.checkNoPackageWrittenOver(command, packagePaths: inventory.packagePaths)

        var adapters: [FleetAdapter] = []
        var simulated: [String: SimulatedCentral] = [:]
        let simulatedIndices = inventory.devices.indices.filter { inventory.devices[$0].simulate != nil }
        if !simulatedIndices.isEmpty {
            var parsed: [[String]: SimulationOptions] = [:]
            let configurations = try simulatedIndices.map { index in
                inventory.devices[index].adapter = Self.simulatedAdapter
                return try Self.usage {
                    try SimulatedDeviceConfiguration(
                        fleetEntry: inventory.devices[index], index: index, parsed: &parsed)
                }
            }
            let (adapter, centrals) = try Self.usage { try FleetAdapter.simulated(configurations) }
            adapters.append(adapter)
            for (index, central) in zip(simulatedIndices, centrals) {
                simulated[inventory.devices[index].device] = central
            }
        }
        if simulatedIndices.count < inventory.devices.count {
            adapters += try await Self.bluetoothAdapters(command, inventory: inventory)
        }
        var state: FleetStateFile?
        if let path = command.state {
            state = try await Self.state(
                at: URL(fileURLWithPath: path), inventory: url, readOnly: command.options.plan)
        }
        fleet = try Self.usage {
            try Fleet(
                inventory: inventory, packages: packages, adapters: adapters, options: command.options,
                state: state)
        }
        self.simulated = simulated
    }

    /// Refuses a `--report` or `--state` file that is one of the packages the inventory names
    /// (or the init packet read beside a bare image): the run would write over it.
    private static func checkNoPackageWrittenOver(_ command: FleetCommand, packagePaths: [String]) throws {
        let initPackets = packagePaths.map {
            DFUPackage.initPacketFile(beside: URL(fileURLWithPath: $0)).path
        }
        let inputs =
            packagePaths.map { (name: "a package the inventory names", path: $0) }
            + initPackets.filter { FileManager.default.fileExists(atPath: $0) }.map {
                (name: "the init packet of a package the inventory names", path: $0)
            }
        for (option, path) in [("--report", command.report), ("--state", command.state)] {
            if let path, let problem = OutputFilePath.overwrites(path, option: option, inputs: inputs) {
                throw CommandFailure(errorClass: "usage", message: problem, exitCode: .usage)
            }
        }
    }

    /// The BlueZ adapters named with `--adapter` or in the inventory; the first adapter when none is.
    private static func bluetoothAdapters(_ command: FleetCommand, inventory: FleetInventory) async throws
        -> [FleetAdapter]
    {
        var names = command.adapters
        let named = inventory.devices.filter { $0.simulate == nil }.compactMap(inventory.adapter(of:))
        for name in named where !names.contains(name) { names.append(name) }
        if names.isEmpty {
            return [
                FleetAdapter(
                    name: "default",
                    central: try await command.device.central(
                        adapter: nil, perDevice: inventory.namesPasskeySources),
                    maximumConnections: command.adapterConnections)
            ]
        }
        var adapters: [FleetAdapter] = []
        for name in names {
            let central = try await command.device.central(
                adapter: name, perDevice: inventory.namesPasskeySources)
            adapters.append(
                FleetAdapter(name: name, central: central, maximumConnections: command.adapterConnections))
        }
        return adapters
    }

    /// The inventory file at `path` (fleet's, a rollout's, a gateway's simulated devices); a
    /// missing file or a bad inventory fails in the contract's classes.
    static func inventory(at path: String) throws -> FleetInventory {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure(
                errorClass: "file_not_found", message: "\(path): no such readable file; check the path",
                exitCode: .fileNotFound)
        }
        return try usage { try FleetInventory(contentsOf: URL(fileURLWithPath: path)) }
    }

    /// Each package the inventory names, read and checked (also that bootloaders can verify it);
    /// a failure in the contract's classes.
    static func packages(_ paths: [String]) throws -> [String: FirmwarePackage] {
        var packages: [String: FirmwarePackage] = [:]
        for path in paths {
            do {
                let package = try FirmwarePackage(contentsOf: URL(fileURLWithPath: path))
                try package.contents.checkDevicesCanVerify()
                packages[path] = package
            } catch {
                throw CommandFailure(error) ?? error
            }
        }
        return packages
    }

    /// The state file of a rollout of the inventory at `inventory`, named by the inventory's
    /// CRC-32 and size; a file it cannot use is a usage error.
    private static func state(at url: URL, inventory: URL, readOnly: Bool) async throws -> FleetStateFile {
        let bytes = try Data(contentsOf: inventory)
        do {
            return try await FleetStateFile(
                url: url,
                inventory: String(format: "crc32:%08x:%d", CRC32.checksum(Array(bytes)), bytes.count),
                source: RolloutInventory(bytes: bytes, folder: inventory.deletingLastPathComponent().path),
                describe: FleetReportFile.deviceJSON, readOnly: readOnly)
        } catch {
            throw CommandFailure(errorClass: "usage", message: error.message, exitCode: .usage)
        }
    }

    /// Runs `body`, turning an inventory or simulator configuration error into a usage error.
    static func usage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FleetInventoryError where error.isInlineSecret {
            throw CommandFailure(errorClass: "inline_secret", message: error.message, exitCode: .invalidData)
        } catch let error as FleetInventoryError {
            throw CommandFailure(errorClass: "usage", message: error.message, exitCode: .usage)
        } catch let error as SimulatorConfigurationError {
            throw CommandFailure(errorClass: "usage", message: error.description, exitCode: .usage)
        }
    }
}
