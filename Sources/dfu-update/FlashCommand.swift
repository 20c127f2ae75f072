import ArgumentParser
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import NordicDFU
import SimulatorCommandLine

/// `dfu-update flash`: sends a DFU package to one device.
struct FlashCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "flash",
        abstract: "Update a device with a DFU package or an MCUboot image.",
        discussion: """
            Nordic DFU (nRF5 SDK devices): connects, compares the device's firmware version with the package's (skipping a \
            device that is up to date unless --force), switches an application into its \
            bootloader (buttonless DFU), sends every image of the package and waits for the \
            device to activate it. Secure DFU resumes after a lost link; Ctrl-C aborts and \
            leaves the device able to take the update again. A package whose hash Nordic's \
            bootloaders cannot check (not sha256) is refused before connecting.

            SMP (nRF Connect SDK and Zephyr devices with MCUboot): given an MCUboot image or a \
            dfu_application.zip, reads the device's image list (skipping images it runs), \
            uploads each image with several chunks in flight (resuming after a lost link), then \
            activates them as --activation says and checks what the device runs.
            """)

    @Argument(
        help:
            "The firmware: a Nordic DFU .zip or bare .bin/.hex, an nRF Connect SDK dfu_application.zip, or an MCUboot image."
    )
    var package: String

    @Option(help: "The device: its address (AA:BB:CC:DD:EE:FF) or its advertised name.")
    var device: String?

    @OptionGroup var bluetooth: BluetoothOptions
    @OptionGroup var simulation: SimulationOptions

    @Flag(help: "Print JSON Lines events (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    @OptionGroup(title: "Update options") var update: UpdateOptions

    @Option(help: "The package's version (x.y.z or an integer), instead of the one in its init packet.")
    var packageVersion: DFUFirmwareVersion?

    func validate() throws {
        if device == nil, simulation.simulate == nil { throw ValidationError("--device is required") }
        if let device, let problem = DeviceIdentifier.problem(with: device) {
            throw ValidationError("--device: \(problem)")
        }
    }

    func run() async throws {
        let firmware = try FirmwarePackage(
            contentsOf: URL(fileURLWithPath: package), slotSize: update.slotSize)
        try firmware.checkDevicesCanVerify()
        let target = device.map(DeviceIdentifier.init) ?? .address(Self.simulatedDeviceAddress)
        let central: any GATTCentral
        var simulated: SimulatedCentral?
        if simulation.simulate != nil {
            let simulator = try SimulatedCentral(devices: [simulatedDevice(target)])
            simulated = simulator
            central = simulator
        } else {
            central = try await bluetooth.central()
        }

        let updater: any FirmwareUpdater =
            switch firmware {
            case .nordic(let nordic):
                DFUUpdater(package: nordic, central: central, device: target, options: options)
            case .mcuboot(let images):
                SMPUpdater(package: images, central: central, device: target, options: options)
            }
        let reporter = FlashReporter(device: target.description, json: json)
        let (controller, events) = updater.start(controller: DFUController(), observer: { _ in })
        let interrupt = InterruptHandler { controller.abort() }
        var result: DFUResult?
        for await event in events {
            if case .result(let final) = event {
                result = final
                if let simulated, let snapshot = simulated.snapshot(of: target) {
                    reporter.simulator(snapshot.contractMembers)
                }
            }
            reporter.report(event)
        }
        withExtendedLifetime(interrupt) {}
        switch result?.outcome {
        case .completed, .skipped: return
        case .aborted, nil: throw ExitCode.interrupted
        case .failed(let failure):
            throw failure.error == .bluetoothDisabled ? ExitCode.bluetoothUnavailable : ExitCode.updateFailed
        }
    }

    /// The address a simulated device gets when `--device` is not an address.
    static let simulatedDeviceAddress = "C0:DE:00:00:00:10"

    /// The simulated device `--simulate` and the `--sim-*` options describe, found as `target`.
    private func simulatedDevice(_ target: DeviceIdentifier) throws -> SimulatedDeviceConfiguration {
        switch target {
        case .address(let text): try simulation.configuration(address: BluetoothAddress(text)!)
        case .name(let name):
            try simulation.configuration(address: BluetoothAddress(Self.simulatedDeviceAddress)!, name: name)
        }
    }

    private var options: DFUOptions {
        var options = update.dfuOptions
        options.packageVersion = packageVersion?.description
        return options
    }
}

extension DeviceSnapshot {
    /// The members of the contract's `simulator` event after `event` and `device`.
    var contractMembers: [(String, JSONValue)] {
        let images = images.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            type, image -> (String, JSONValue) in
            (
                type.rawValue,
                .object([
                    ("size", .int(image.size)), ("sha256", .string(image.sha256)),
                    ("version", .optional(image.version)),
                ])
            )
        }
        let members: [(String, JSONValue)] = [
            ("mode", .string(mode.rawValue)), ("images", .object(images)), ("activations", .int(activations)),
        ]
        return slots.isEmpty ? members : members + [("slots", .array(slots.map(\.contractValue)))]
    }
}

extension MCUbootSlotState {
    /// A slot of an SMP device as the contract's `simulator` event reports it.
    var contractValue: JSONValue {
        .object([
            ("slot", .int(slot)), ("version", .string(version)), ("hash", .string(hash.hexString())),
            ("size", .int(size)), ("bootable", .bool(bootable)), ("pending", .bool(pending)),
            ("confirmed", .bool(confirmed)), ("active", .bool(active)), ("permanent", .bool(permanent)),
        ])
    }
}
