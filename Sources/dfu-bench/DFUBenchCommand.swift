import ArgumentParser

@main
struct DFUBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dfu-bench",
        abstract: "Benchmarks of dfu-update's building blocks (run them in release mode).",
        subcommands: [GATTBenchmark.self])
}
