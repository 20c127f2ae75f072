import SimulatorProcess

extension DFUSimProcess {
    /// Starts `dfu-sim --simulate KIND --adapter ADAPTER --json ARGUMENTS…` (hci1 by default), the
    /// `dfu-sim` built beside the test bundle.
    convenience init(
        _ kind: String, _ arguments: [String] = [], adapter: String = SystemTestEnvironment.peripheralAdapter
    ) throws {
        try self.init(
            executable: SystemTestEnvironment.executable("dfu-sim"),
            arguments: ["--simulate", kind, "--adapter", adapter] + arguments)
    }
}
