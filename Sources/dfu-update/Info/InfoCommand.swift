import ArgumentParser
import CommandLineContract
import FirmwareUpdate
import GATT
import NordicDFU
import SimulatorCommandLine

/// `dfu-update info`: connects to one device and reports its firmware versions and DFU support.
struct InfoCommand: ContractCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Connect to a device and show its firmware version and DFU support.",
        discussion: """
            Reads the Device Information strings (firmware, hardware, software revision) and \
            finds out which protocol the device takes updates by (Secure or Legacy DFU, or SMP) \
            and whether it runs its application or the bootloader, as flash would, and whether \
            this host holds a bond for it (BlueZ tells no characteristic's security without a \
            write; docs/pairing.md); then disconnects. With --simulate KIND, asks the in-process simulated device instead (no \
            Bluetooth needed).
            """)

    @Option(
        help: "The device: its address (AA:BB:CC:DD:EE:FF, either case) or its advertised name.",
        transform: DeviceIdentifier.argument)
    var device: DeviceIdentifier

    @OptionGroup var bluetooth: BluetoothOptions
    @OptionGroup var simulation: SimulationOptions

    @Option(
        parsing: .unconditional,
        help:
            "How long to look for the device and connect, in seconds, 0.01…3600 (default: 30).",
        transform: Seconds.parse)
    var timeout = Seconds(30)

    @Flag(help: "Print one JSON object (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    static let readTimeout: Duration = .seconds(10)

    func checkOptions() throws { try bluetooth.refuseAdapter(besides: simulation) }

    func run() async throws {
        let central: any GATTCentral =
            if simulation.simulate != nil {
                try simulation.central(for: device)
            } else {
                try await bluetooth.central()
            }
        let peripheral = try await central.connect(device, timeout: timeout.duration)
        let probe: DeviceProbe
        do {
            probe = try await DeviceProbe.read(peripheral, timeout: Self.readTimeout)
        } catch {
            await peripheral.disconnect()
            throw error
        }
        await peripheral.disconnect()
        let paired = try? await (central as? any PairingCentral)?.isPaired(address: probe.address)
        Output.line(json ? probe.json(paired: paired).serialized() : probe.humanText(paired: paired))
    }
}

/// What `info` prints of a device.
extension DeviceProbe {
    /// `paired`: whether this host holds a bond for the device; nil when it cannot tell.
    func json(paired: Bool?) -> JSONValue {
        .object([
            ("address", .string(address.description)),
            ("name", .optional(name)),
            ("services", .array(services.map { .string($0.uuidString) })),
            ("firmware_revision", .optional(firmwareRevision)),
            ("hardware_revision", .optional(hardwareRevision)),
            ("software_revision", .optional(softwareRevision)),
            (
                "dfu",
                .object([
                    ("protocol", .optional(support?.protocolKind.rawValue)),
                    ("mode", .optional(support?.mode.rawValue)),
                    ("buttonless", .optional(support?.buttonless?.rawValue)),
                    ("legacy_dfu_version", .optional(support?.legacyVersion?.description)),
                ])
            ),
            (
                "bootloader",
                bootloader.map {
                    .object([("name", .string($0.name)), ("mode", .optional($0.mode?.description))])
                } ?? .null
            ),
            (
                "images",
                imageLayout.map {
                    .object([("listed", .int($0.images)), ("numbered", .bool($0.numbered))])
                } ?? .null
            ),
            ("paired", paired.map(JSONValue.bool) ?? .null),
        ])
    }

    func humanText(paired: Bool?) -> String {
        var lines = ["\(address)  \(name ?? "(no name)")"]
        lines.append("  firmware revision: \(firmwareRevision ?? "-")")
        lines.append("  hardware revision: \(hardwareRevision ?? "-")")
        lines.append("  software revision: \(softwareRevision ?? "-")")
        if let support {
            var text = "  DFU: \(support.protocolKind.rawValue), \(support.mode.rawValue)"
            if let buttonless = support.buttonless { text += ", buttonless \(buttonless.rawValue)" }
            if let version = support.legacyVersion { text += ", DFU version \(version)" }
            lines.append(text)
        } else {
            lines.append("  DFU: not offered")
        }
        if let bootloader { lines.append("  bootloader: \(bootloader.summary)") }
        if let imageLayout { lines.append("  images: \(imageLayout.summary)") }
        if let paired { lines.append("  bond: \(paired ? "this host holds one" : "none on this host")") }
        lines.append("  services: " + services.map(\.uuidString).joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}
