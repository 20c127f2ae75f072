import ArgumentParser
import GATT

/// `dfu-update info`: connects to one device and reports its firmware versions and DFU support.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Connect to a device and show its firmware version and DFU support.",
        discussion: """
            Reads the Device Information strings (firmware, hardware, software revision) and \
            finds out which Nordic DFU protocol the device speaks and whether it runs its \
            application or the bootloader; then disconnects.
            """)

    @Option(help: "The device: its address (AA:BB:CC:DD:EE:FF) or its advertised name.")
    var device: String

    @OptionGroup var bluetooth: BluetoothOptions

    @Option(help: "How long to look for the device and connect, in seconds.")
    var timeout: Double = 30

    @Flag(help: "Print one JSON object (docs/cli-contract.md).")
    var json = false

    static let firmwareRevision = BluetoothUUID(short: 0x2A26)
    static let hardwareRevision = BluetoothUUID(short: 0x2A27)
    static let softwareRevision = BluetoothUUID(short: 0x2A28)
    static let readTimeout: Duration = .seconds(10)

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    func run() async throws {
        try await reportingFailures(json: json) {
            let central = try await bluetooth.central()
            let peripheral = try await central.connect(DeviceIdentifier(device), timeout: .seconds(timeout))
            do {
                let info = try await Self.read(peripheral)
                await peripheral.disconnect()
                print(info)
            } catch {
                await peripheral.disconnect()
                throw error
            }
        }
    }

    private func print(_ info: DeviceInfo) {
        if json {
            Output.line(info.json)
        } else {
            Output.line(info.humanText)
        }
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
        var legacyVersion: [UInt8]?
        if let characteristic = services.first(where: { $0.uuid == DFUServiceDetection.legacyService })?
            .characteristic(DFUServiceDetection.legacyVersion)
        {
            legacyVersion = try await characteristic.read(timeout: readTimeout)
        }
        return DeviceInfo(
            address: peripheral.address, name: peripheral.name, services: services.map(\.uuid),
            firmwareRevision: try await string(firmwareRevision),
            hardwareRevision: try await string(hardwareRevision),
            softwareRevision: try await string(softwareRevision),
            dfu: DFUServiceDetection.report(services: services, legacyVersion: legacyVersion))
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
    var dfu: DFUServiceDetection.Report

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
                    ("protocol", .optional(dfu.protocolName)),
                    ("mode", .optional(dfu.mode)),
                    ("buttonless", .optional(dfu.buttonless)),
                    ("legacy_dfu_version", .optional(dfu.legacyVersion)),
                ])
            ),
        ])
    }

    var humanText: String {
        var lines = ["\(address)  \(name ?? "(no name)")"]
        lines.append("  firmware revision: \(firmwareRevision ?? "-")")
        lines.append("  hardware revision: \(hardwareRevision ?? "-")")
        lines.append("  software revision: \(softwareRevision ?? "-")")
        if let protocolName = dfu.protocolName {
            var text = "  DFU: \(protocolName), \(dfu.mode ?? "unknown mode")"
            if let buttonless = dfu.buttonless { text += ", buttonless \(buttonless)" }
            if let version = dfu.legacyVersion { text += ", DFU version \(version)" }
            lines.append(text)
        } else {
            lines.append("  DFU: not offered")
        }
        lines.append("  services: " + services.map(\.uuidString).joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}
