import ArgumentParser
import BlueZ

/// `dfu-update adapters`: the Bluetooth adapters bluetoothd has, for `--adapter`.
struct AdaptersCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List the Bluetooth adapters bluetoothd has (the names --adapter takes).",
        discussion: """
            One line per adapter: its name (hciN), its address and whether it is powered. With \
            --json, one JSON object per line: {"event":"adapter","name","address","powered"}.
            """)

    @Flag(help: "Print JSON Lines (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let adapters = try await BlueZCentral.adapters()
        if !json && adapters.isEmpty { Output.error("bluetoothd has no Bluetooth adapter") }
        for adapter in adapters {
            if json {
                Output.line(
                    .object([
                        ("event", .string("adapter")), ("name", .string(adapter.name)),
                        ("address", .string(adapter.address)), ("powered", .bool(adapter.powered)),
                    ]))
            } else {
                Output.line("\(adapter.name)  \(adapter.address)  \(adapter.powered ? "powered" : "off")")
            }
        }
    }
}
