import ArgumentParser
import GATT

/// `dfu-update scan`: lists the Bluetooth LE devices around, each once with its latest data.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List nearby Bluetooth LE devices and whether they offer Nordic DFU.",
        discussion: """
            Scans for --timeout seconds, then prints each device found once, with the latest \
            data it advertised. With --json, one JSON object per line (JSON Lines).
            """)

    @OptionGroup var bluetooth: BluetoothOptions

    @Option(help: "How long to scan, in seconds.")
    var timeout: Double = 5

    @Flag(help: "Print JSON Lines (docs/cli-contract.md).")
    var json = false

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    func run() async throws {
        try await reportingFailures(json: json) {
            let central = try await bluetooth.central()
            var order: [String] = []
            var latest: [String: Advertisement] = [:]
            for try await advertisement in central.scan(ScanFilter(), timeout: .seconds(timeout)) {
                if latest[advertisement.address] == nil { order.append(advertisement.address) }
                latest[advertisement.address] = advertisement
            }
            if !json && order.isEmpty {
                Output.error("no devices found on \(central.adapterName) in \(timeout) s")
            }
            for address in order {
                guard let advertisement = latest[address] else { continue }
                if json {
                    Output.line(Self.jsonLine(advertisement))
                } else {
                    Output.line(Self.humanLine(advertisement))
                }
            }
        }
    }

    static func jsonLine(_ advertisement: Advertisement) -> JSONValue {
        .object([
            ("event", .string("device")),
            ("address", .string(advertisement.address)),
            ("address_type", .string(advertisement.addressType.rawValue)),
            ("name", .optional(advertisement.name)),
            ("rssi", .optional(advertisement.rssi)),
            ("services", .array(advertisement.serviceUUIDs.map { .string($0.uuidString) })),
            ("dfu", .optional(DFUServiceDetection.advertisedProtocol(advertisement.serviceUUIDs))),
        ])
    }

    static func humanLine(_ advertisement: Advertisement) -> String {
        let rssi = advertisement.rssi.map { "\($0) dBm" } ?? "-"
        let dfu =
            DFUServiceDetection.advertisedProtocol(advertisement.serviceUUIDs).map { "  [\($0) DFU]" } ?? ""
        return "\(advertisement.address) (\(advertisement.addressType.rawValue))  \(rssi)  "
            + "\(advertisement.name ?? "(no name)")\(dfu)"
    }
}
