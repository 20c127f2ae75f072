import ArgumentParser
import BlueZ
import CommandLineContract
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import MCUmgr
import NordicDFU
import SimulatorCommandLine

/// `dfu-update flash`: sends a DFU package to one device.
struct FlashCommand: ContractCommand, OptionChecks {
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

            With --public-key, every signed image (a Nordic init packet, an MCUboot image) must \
            verify with that key before anything connects; an unsigned package has nothing to \
            verify, and flash says so.

            A device that asks for security is paired through flash's own BlueZ agent (Just \
            Works, or passkey entry with a passkey source; never a passkey on the command line); \
            a bond this run made is removed afterwards unless --keep-bond, one held before is \
            kept (docs/pairing.md).
            """)

    @Argument(
        help:
            "The firmware: a Nordic DFU .zip or bare .bin/.hex, an nRF Connect SDK dfu_application.zip, or an MCUboot image."
    )
    var package: String

    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp(
            "Before connecting, check every signed image with this key: PEM (P-256, or Ed25519 for MCUboot) or nrfutil's 128-hex-digit form.",
            valueName: "file"))
    var publicKey: String?

    @Option(
        help: "The device: its address (AA:BB:CC:DD:EE:FF, either case) or its advertised name.",
        transform: DeviceIdentifier.argument)
    var device: DeviceIdentifier?

    @OptionGroup var bluetooth: BluetoothOptions
    @OptionGroup(title: "Pairing (docs/pairing.md)") var pairing: PairingOptions
    @OptionGroup var simulation: SimulationOptions

    @Flag(help: "Print JSON Lines events (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    @OptionGroup(title: "Update options") var update: UpdateOptions

    @Option(help: "The package's version (x.y.z or an integer), instead of the one in its init packet.")
    var packageVersion: DFUFirmwareVersion?

    func checkOptions() throws {
        if device == nil, simulation.simulate == nil { throw ValidationError("--device is required") }
        try bluetooth.refuseAdapter(besides: simulation)
    }

    func run() async throws {
        let key = try publicKey.map(PublicKeyFile.init(path:))
        let firmware = try FirmwarePackage(
            contentsOf: URL(fileURLWithPath: package), slotSize: update.slotSize)
        try firmware.contents.checkDevicesCanVerify()
        if let key, try !key.checkSignatures(of: firmware.contents, file: package), !json {
            Output.error("\(package): \(key.nothingToVerify)")
        }
        try checkPacketSize(for: firmware.contents)
        let target = device ?? .address(.simulatedDevice)
        let central: any GATTCentral
        var simulated: SimulatedCentral?
        // Only a device named by its address has a bond to look after: a name says nothing of it
        // before connecting.
        var bond: (RunBond, central: BlueZCentral)?
        if simulation.simulate != nil {
            let simulator = try simulation.central(for: target)
            simulated = simulator
            central = simulator
        } else {
            let blueZ = try await bluetooth.central(pairing: pairing.settings)
            if case .address(let address) = target {
                bond = (try await RunBond(noting: address, on: blueZ, pairAgain: pairing.rePair), blueZ)
            }
            central = blueZ
        }

        let updater = firmware.contents.updater(central: central, device: target, options: options)
        let activation = firmware.contents.takesActivation ? update.activation : nil
        let reporter = FlashReporter(
            device: target.description, json: json, activation: activation, simulated: simulated != nil)
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
        if let (bond, central) = bond, let removal = await bond.finish(on: central, keep: pairing.keepBond),
            !json
        {
            Output.error(removal.message)
        }
        switch result?.outcome {
        case .completed, .skipped: return
        case .aborted, nil: throw ExitCode.interrupted
        case .failed(let failure):
            throw failure.error == .bluetoothDisabled ? ExitCode.bluetoothUnavailable : ExitCode.updateFailed
        }
    }

    /// Refuses, before connecting, a `--packet-size` too small for an image's first SMP frame,
    /// which carries the whole MCUboot header.
    private func checkPacketSize(for package: any UpdatablePackage) throws {
        guard let needed = package.smallestPacketSize, update.packetSize < needed else { return }
        throw CommandFailure(
            usage: "--packet-size \(update.packetSize): an SMP update needs packets of at least \(needed) "
                + "bytes (the first frame carries the image's \(MCUbootHeader.size)-byte header); give "
                + "--packet-size \(needed) or more, or leave it out; see --help")
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
        guard !slots.isEmpty else { return members }
        let networkCore: [(String, JSONValue)] =
            networkCoreHash.map { [("network_core_hash", .string($0.hexString()))] } ?? []
        return members + [
            ("slots", .array(slots.map(\.contractValue))), ("settings_erasures", .int(settingsErasures)),
        ] + networkCore
    }
}

extension MCUbootSlotState {
    /// A slot of an SMP device as the contract's `simulator` event reports it.
    var contractValue: JSONValue {
        .object([
            ("image", .int(image)), ("slot", .int(slot)), ("version", .string(version)),
            ("hash", .string(hash.hexString())),
            ("size", .int(size)), ("bootable", .bool(bootable)), ("pending", .bool(pending)),
            ("confirmed", .bool(confirmed)), ("active", .bool(active)), ("permanent", .bool(permanent)),
        ])
    }
}
