import ArgumentParser

@main
struct DFUBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dfu-bench",
        abstract: "Benchmarks of dfu-update's hot paths; build with -c release.",
        discussion: """
            Each subcommand prints JSON Lines: one object per measurement, then one with the ratios \
            of the run, so that figures compare within one run on one machine.
            """,
        subcommands: [
            CRCBenchmark.self, PackageBenchmark.self, DFUBenchmark.self, GATTBenchmark.self,
            FleetBenchmark.self, LinkBenchmark.self, SMPBenchmark.self, HostBenchmark.self,
            ResourceBenchmark.self, StoreBenchmark.self,
        ])
}
