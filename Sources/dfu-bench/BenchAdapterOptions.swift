import ArgumentParser
import Foundation
import SimulatorProcess

/// Where a benchmark through bluetoothd runs: the updater's adapter, the adapter `dfu-sim`
/// serves the device on, and that `dfu-sim`; one spelling in `link` and `smp`.
struct BenchAdapterOptions: ParsableArguments {
    @Option(help: "The adapter of the updater.")
    var adapter = "hci0"

    @Option(help: "The adapter dfu-sim serves the device on.")
    var peripheralAdapter = "hci1"

    @Option(help: "The dfu-sim executable (default: the one next to dfu-bench).")
    var dfuSim: String?

    /// The `dfu-sim` to start.
    var dfuSimExecutable: URL { dfuSim.map { URL(fileURLWithPath: $0) } ?? DFUSimProcess.besideThisProgram }
}
