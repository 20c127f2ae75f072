import Foundation

/// How a device's update ended, as the fleet report says it (docs/cli-contract.md).
public enum DeviceResult: String, Sendable, Codable, CaseIterable {
    case completed
    case skipped
    case failed
    case aborted

    /// Whether it counts against `maxFailures`.
    public var isFailure: Bool { self == .failed }
    /// Whether a canary device that ended so lets the rest of the rollout start.
    public var passesCanary: Bool { self == .completed || self == .skipped }
}

/// What a gateway reports for the device it holds: final, once per device and rollout.
public struct DeviceOutcome: Sendable, Equatable {
    public var result: DeviceResult
    /// The failure, for people: the fleet report's `error`.
    public var error: String?
    /// The device's fleet report entry as JSON, kept as it is.
    public var report: Data?

    public init(result: DeviceResult, error: String? = nil, report: Data? = nil) {
        self.result = result
        self.error = error
        self.report = report
    }
}
