import DFURollout

extension DeviceStanding {
    /// Where `device` stands, from its status.
    init(_ device: DeviceStatus) {
        switch device.result {
        case .completed: self = .completed
        case .skipped: self = .skipped
        case .failed: self = .failed
        case .aborted: self = .aborted
        case nil: self = device.held ? .inProgress : .pending
        }
    }

    /// For people: `in progress`.
    var label: String { rawValue.replacingOccurrences(of: "_", with: " ") }
}
