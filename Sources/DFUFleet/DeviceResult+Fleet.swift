import DFURollout

extension DeviceResult {
    /// A fleet device's result as a rollout counts it; nil for `notStarted`, which is no result.
    package init?(_ result: FleetDeviceReport.Result) {
        switch result {
        case .completed: self = .completed
        case .skipped: self = .skipped
        case .failed: self = .failed
        case .aborted: self = .aborted
        case .notStarted: return nil
        }
    }
}
