import ArgumentParser
import BlueZ
import BlueZStandIn
import CommandLineContract
import DBus
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import Logging
import ServiceLifecycle
import SimulatorCommandLine

@main
struct DFUSimCommand: AsyncParsableCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "dfu-sim",
        abstract:
            "Serve a simulated device on a Bluetooth adapter for DFU clients to update: an nRF5 device (Nordic DFU) or a Zephyr device with MCUboot (SMP).",
        discussion: """
            Runs the same device model as `dfu-update flash --simulate` (bootloaders, flash, \
            faults; docs/simulator.md), but on a real adapter through bluetoothd: it registers \
            the running firmware's GATT table and advertises, and any DFU client (dfu-update, a \
            phone's DFU app, nrf-ota; for --simulate smp-app an SMP client such as smpmgr) can \
            update it. Across every reset it re-registers the new \
            firmware's table and advertises again; a bootloader entered through buttonless DFU \
            without bonds advertises at the application's address + 1 (this needs root: raw HCI; \
            docs/dfu-sim.md). Stop it with Ctrl-C: it then says what the device holds.

            With --json it prints JSON Lines: {"event":"advertising","device":"…","name":"…",\
            "mode":"application"|"bootloader"} each time the device (re)starts advertising, and \
            on SIGINT/SIGTERM the contract's simulator event (docs/cli-contract.md) before it \
            exits 0. With --trace also {"event":"write","at_ms":T,"characteristic":"…",\
            "length":N,"value":"<hex>","notifies_after_ms":[…]} for every write the device takes.

            Examples:
              dfu-sim --simulate secure-app --adapter hci1
              dfu-sim --simulate legacy --adapter hci1 --json
              dfu-sim --simulate secure --sim-public-key Firmware/dfu_test_key_public.pem
              dfu-sim --simulate secure-app --sim-fault disconnect-at=8192
            """,
        version: BuildInfo.description)

    @OptionGroup var simulation: SimulationOptions
    @OptionGroup(title: "Pairing (docs/pairing.md)") var pairing: SimPairingOptions

    @Option(help: "The Bluetooth adapter to serve on: hciN or its address (default: the first one).")
    var adapter: String?

    @Option(help: "The name the application advertises (DfuSim).")
    var name: String?

    @Flag(help: "Print JSON Lines events (see above).")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Also print every write the device takes, and when its answers are due.",
            discussion: """
                Reported once the write was handed to the device and answered: its \
                characteristic, length, first 20 bytes, and after how long each notification it \
                causes is due (a flash-bound Execute shows its wait here).
                """))
    var trace = false

    @Flag(
        help: ArgumentHelp(
            "The simulated flash takes no time: no erase, no word write, no hash.",
            discussion: """
                Not a model of any nRF5: nothing on the device paces a client, for measuring what \
                the client itself costs (`dfu-bench host --instant-flash`). A slow-flash fault \
                still sets the erase time.
                """))
    var instantFlash = false

    @Flag(
        help: ArgumentHelp(
            "Stand in for bluetoothd instead of serving on an adapter (no radio needed).",
            discussion: """
                Owns org.bluez on the system bus (in practice a private bus named by \
                DBUS_SYSTEM_BUS_ADDRESS) and shows the device as already known to adapter hci0, \
                ready to connect to. A model of bluetoothd's D-Bus interface, not of its radio: \
                for `dfu-bench host`, which measures the updater's own cost of the D-Bus path.
                """))
    var bluetoothdStandIn = false

    func checkOptions() throws {
        if trace && bluetoothdStandIn {
            throw ValidationError("--trace reports writes on an adapter; the stand-in has none to report")
        }
        if bluetoothdStandIn && pairing.simSecurity != .open {
            throw ValidationError(
                "--sim-security is served by bluetoothd on an adapter; the stand-in has none")
        }
        if simulation.simulate == nil {
            throw ValidationError(
                "--simulate KIND is required: \(SimulatedDeviceKind.names.joined(separator: ", "))")
        }
    }

    /// Parses and runs; a usage error is reported as every other failure (docs/dfu-sim.md): one
    /// object with `--json`, one `error:` line without, exit 64; an unanticipated error alike,
    /// as `internal`, exit 1 (the errors `run` foresees it reports itself, `SimReporter.fail`).
    static func main() async {
        await runReporting { unreported in
            let reporter = SimReporter(json: unreported.json)
            if let line = unreported.usageLine { return reporter.fail("usage", line, exitCode: 64) }
            return reporter.fail(
                "internal", messageLine(for: unreported.error) + " (unanticipated: please report it)",
                exitCode: 1)
        }
    }

    func run() async throws {
        let reporter = SimReporter(json: json)
        let stop = Termination.start()
        do {
            if bluetoothdStandIn { return try await standIn(reporter: reporter, stop: stop) }
            // a mistake in the device's options is the user's to fix first, before any Bluetooth
            try deviceConfiguration(address: .simulatedDevice).validate()
            let links = try await PeripheralLinks.watch(adapter: adapter)
            guard let address = BluetoothAddress(links.adapterAddress) else {
                throw GATTError.operationFailed(
                    operation: "reading the address of \(links.adapterName)",
                    reason: "bluetoothd reports '\(links.adapterAddress)', not a Bluetooth address")
            }
            let device = try RealTimeDevice(configuration: deviceConfiguration(address: address))
            let agent = try await pairing.agent(adapter: adapter)
            let host = DeviceHost(
                device: device, links: links, reporter: reporter, tracesWrites: trace,
                security: pairing.simSecurity)
            try await host.start()
            await stop.wait()
            await host.stop()
            await agent?.forgetNewBonds()
            reporter.simulator(device.snapshot)
        } catch let error as SimulationOptionsError {
            throw reporter.fail(
                error.isMissingFile ? "file_not_found" : "usage", error.description,
                exitCode: error.isMissingFile ? 66 : 64)
        } catch let error as SimulatorConfigurationError {
            throw reporter.fail("usage", error.description, exitCode: 64)
        } catch let error as GATTError {
            if case .bluetoothUnavailable = error {
                throw reporter.fail("bluetooth_unavailable", error.description, exitCode: 69)
            }
            throw reporter.fail("operation_failed", error.description, exitCode: 1)
        }
    }
}

extension DFUSimCommand {
    /// The device behind a `BluetoothdStandIn`, until SIGINT or SIGTERM.
    private func standIn(reporter: SimReporter, stop: Termination) async throws {
        let device = try RealTimeDevice(configuration: deviceConfiguration(address: .simulatedDevice))
        let standIn = try await BluetoothdStandIn(
            connection: try await DBusConnection.connect(to: .system), device: device)
        let persona = device.persona
        reporter.advertising(address: persona.address.description, name: persona.name, mode: persona.mode)
        await stop.wait()
        standIn.stop()
        reporter.simulator(device.snapshot)
    }

    private func deviceConfiguration(address: BluetoothAddress) throws(SimulationOptionsError)
        -> SimulatedDeviceConfiguration
    {
        var configuration = try simulation.configuration(address: address, name: name)
        if instantFlash { configuration.timing.makeFlashInstant() }
        return configuration
    }
}

/// SIGINT or SIGTERM, through swift-service-lifecycle: a service group whose one service waits
/// for the graceful shutdown that those signals start (they then no longer end the process by
/// themselves).
struct Termination {
    private let group: Task<Void, Never>

    static func start() -> Termination {
        let waiting = ServiceGroupConfiguration.ServiceConfiguration(
            service: ClosureService { try await gracefulShutdown() },
            successTerminationBehavior: .gracefullyShutdownGroup)
        // stdout is the contract's (JSON Lines with --json): the group says nothing
        let quiet = Logger(label: "dfu-sim") { _ in SwiftLogNoOpLogHandler() }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [waiting], gracefulShutdownSignals: [.sigterm, .sigint], logger: quiet))
        return Termination(group: Task { try? await group.run() })
    }

    /// Returns once SIGINT or SIGTERM came.
    func wait() async { await group.value }
}
