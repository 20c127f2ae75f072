import DFURollout

/// Where one device stands, as the page counts and filters it: its result, else whether a
/// gateway holds it now (`in_progress`) or it waits (`pending`).
enum DeviceState: String, CaseIterable, Sendable {
    case completed, skipped, failed, aborted
    case inProgress = "in_progress"
    case pending

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

    /// Whether the device has its result.
    var isDone: Bool { self != .inProgress && self != .pending }
}
