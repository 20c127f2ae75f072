import ArgumentParser
import GATT
import NordicDFU

/// `dfu-update info`: connects to one device and reports its firmware versions and DFU support.
struct InfoCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Connect to a device and show its firmware version and DFU support.",
        discussion: """
            Reads the Device Information strings (firmware, hardware, software revision) and \
            finds out which Nordic DFU protocol the device speaks and whether it runs its \
            application or the bootloader, as flash would; then disconnects.
            """)

    @Option(help: "The device: its address (AA:BB:CC:DD:EE:FF) or its advertised name.")
    var device: String

    @OptionGroup var bluetooth: BluetoothOptions

    @Option(
        help: "How long to look for the device and connect, in seconds, more than 0 and at most 3600.",
        transform: Seconds.parse)
    var timeout = Seconds(30)

    @Flag(help: "Print one JSON object (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let problem = DeviceIdentifier.problem(with: device) {
            throw ValidationError("--device: \(problem)")
        }
    }

    static let readTimeout: Duration = .seconds(10)

    func run() async throws {
        let central = try await bluetooth.central()
        let peripheral = try await central.connect(DeviceIdentifier(device), timeout: timeout.duration)
        let info: DeviceInfo
        do {
            info = try await Self.read(peripheral)
        } catch {
            await peripheral.disconnect()
            throw error
        }
        await peripheral.disconnect()
        Output.line(json ? info.json.serialized() : info.humanText)
    }

    static func read(_ peripheral: any GATTPeripheral) async throws -> DeviceInfo {
        let services = try await peripheral.services()
        func string(_ uuid: BluetoothUUID) async throws -> String? {
            guard let characteristic = services.lazy.compactMap({ $0.characteristic(uuid) }).first else {
                return nil
            }
            let bytes = try await characteristic.read(timeout: readTimeout)
            // DIS strings are UTF-8, sometimes with a terminating NUL
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return DeviceInfo(
            address: peripheral.address, name: peripheral.name, services: services.map(\.uuid),
            firmwareRevision: try await string(DeviceInformationUUIDs.firmwareRevision),
            hardwareRevision: try await string(DeviceInformationUUIDs.hardwareRevision),
            softwareRevision: try await string(DeviceInformationUUIDs.softwareRevision),
            dfu: try await DFUDeviceSupport.detect(in: services, timeout: readTimeout))
    }
}

/// What `info` found out about a device.
struct DeviceInfo {
    var address: String
    var name: String?
    var services: [BluetoothUUID]
    var firmwareRevision: String?
    var hardwareRevision: String?
    var softwareRevision: String?
    /// `nil` when the device offers no DFU.
    var dfu: DFUDeviceSupport?

    var json: JSONValue {
        .object([
            ("address", .string(address)),
            ("name", .optional(name)),
            ("services", .array(services.map { .string($0.uuidString) })),
            ("firmware_revision", .optional(firmwareRevision)),
            ("hardware_revision", .optional(hardwareRevision)),
            ("software_revision", .optional(softwareRevision)),
            (
                "dfu",
                .object([
                    ("protocol", .optional(dfu?.protocolKind.rawValue)),
                    ("mode", .optional(dfu?.mode.rawValue)),
                    ("buttonless", .optional(dfu?.buttonless?.rawValue)),
                    ("legacy_dfu_version", .optional(dfu?.legacyVersion?.description)),
                ])
            ),
        ])
    }

    var humanText: String {
        var lines = ["\(address)  \(name ?? "(no name)")"]
        lines.append("  firmware revision: \(firmwareRevision ?? "-")")
        lines.append("  hardware revision: \(hardwareRevision ?? "-")")
        lines.append("  software revision: \(softwareRevision ?? "-")")
        if let dfu {
            var text = "  DFU: \(dfu.protocolKind.rawValue), \(dfu.mode.rawValue)"
            if let buttonless = dfu.buttonless { text += ", buttonless \(buttonless.rawValue)" }
            if let version = dfu.legacyVersion { text += ", DFU version \(version)" }
            lines.append(text)
        } else {
            lines.append("  DFU: not offered")
        }
        lines.append("  services: " + services.map(\.uuidString).joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}
