import ArgumentParser
import CommandLineContract
import DFUFleet
import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU
import SimulatorCommandLine

/// `dfu-update scan`: lists the Bluetooth LE devices around, each once with its latest data.
struct ScanCommand: ContractCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract:
            "List nearby Bluetooth LE devices and whether they take firmware updates (Nordic DFU, SMP).",
        discussion: """
            Scans for --timeout seconds, then prints each device found once, with the latest \
            data it advertised. With --json, one JSON object per line (JSON Lines). With \
            --simulate KIND, the in-process simulated device advertises at C0:DE:00:00:00:10 (no \
            Bluetooth needed).
            """)

    @OptionGroup var bluetooth: BluetoothOptions
    @OptionGroup var simulation: SimulationOptions

    @Option(
        parsing: .unconditional,
        help: "How long to scan, in seconds, 0.01…3600 (default: 5).",
        transform: Seconds.parse)
    var timeout = Seconds(5)

    @Option(help: "Only devices whose advertised name matches this pattern (* any run of characters, ? one).")
    var name: String?

    @Flag(help: "Only devices that advertise Nordic DFU (Secure or Legacy) or SMP.")
    var dfuOnly = false

    @Flag(help: "Print JSON Lines (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func checkOptions() throws {
        try bluetooth.refuseAdapter(besides: simulation)
        // "" would match only the devices that advertise no name: surely not what was meant
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError(
                "--name takes a name or a pattern (* any run of characters, ? one), not an empty one")
        }
    }

    func run() async throws {
        let central: any GATTCentral
        let place: String
        if simulation.simulate != nil {
            central = try simulation.central(for: .address(.simulatedDevice))
            place = "the simulated link"
        } else {
            let adapter = try await bluetooth.central()
            central = adapter
            place = adapter.adapterName
        }
        var order: [BluetoothAddress] = []
        var latest: [BluetoothAddress: Advertisement] = [:]
        for try await advertisement in central.scan(ScanFilter(), timeout: timeout.duration) {
            if let name, !Glob.matches(name, advertisement.name ?? "") { continue }
            if dfuOnly, DFUDeviceSupport.advertisedProtocol(advertisement.serviceUUIDs) == nil { continue }
            if latest[advertisement.address] == nil { order.append(advertisement.address) }
            latest[advertisement.address] = advertisement
        }
        if !json && order.isEmpty {
            Output.error("no devices found on \(place) in \(timeout.value.secondsForPeople)")
        }
        for address in order {
            guard let advertisement = latest[address] else { continue }
            Output.line(json ? Self.jsonLine(advertisement).serialized() : Self.humanLine(advertisement))
        }
    }

    static func jsonLine(_ advertisement: Advertisement) -> JSONValue {
        .object([
            ("event", .string("device")),
            ("address", .string(advertisement.address.description)),
            ("address_type", .string(advertisement.addressType.rawValue)),
            ("name", .optional(advertisement.name)),
            ("rssi", .optional(advertisement.rssi)),
            ("services", .array(advertisement.serviceUUIDs.map { .string($0.uuidString) })),
            ("dfu", .optional(DFUDeviceSupport.advertisedProtocol(advertisement.serviceUUIDs)?.rawValue)),
        ])
    }

    static func humanLine(_ advertisement: Advertisement) -> String {
        let rssi = advertisement.rssi.map { "\($0) dBm" } ?? "-"
        let dfu =
            DFUDeviceSupport.advertisedProtocol(advertisement.serviceUUIDs).map { "  [\($0.rawValue) DFU]" }
            ?? ""
        return "\(advertisement.address) (\(advertisement.addressType.rawValue))  \(rssi)  "
            + "\(advertisement.name ?? "(no name)")\(dfu)"
    }
}
