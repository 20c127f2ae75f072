import DFUSupport
import FirmwareUpdate
import NordicDFU

/// How one device of a fleet ended (docs/fleet.md, "Output").
public struct FleetDeviceReport: Sendable {
    /// `completed`, `skipped`, `failed`, `aborted` (the contract's results), or `not_started`
    /// (the rollout stopped before this device: canary failed, too many failures, interrupted).
    public enum Result: String, Sendable {
        case completed
        case skipped
        case failed
        case aborted
        case notStarted = "not_started"
    }

    /// The device as the inventory names it.
    public var device: String
    public var result: Result
    public var failure: DFUFailure?
    /// Why it ended so, for the plan and the summary: `up to date`, `state file`, …
    public var reason: String?
    public var info: FleetDeviceInfo?
    /// The package path the device got (or would get).
    public var package: String?
    public var versionBefore: String?
    public var versionAfter: String?
    /// Firmware bytes written, over every attempt.
    public var bytesSent = 0
    /// From the first connection to the end, on the device's link time.
    public var duration: Duration = .zero
    /// Link time spent transferring parts, from their first request to the device's last answer.
    public var transferDuration: Duration = .zero
    /// The engine's reconnections plus the fleet's whole-update retries.
    public var retries = 0

    public init(device: String, result: Result) {
        self.device = device
        self.result = result
    }

    /// Bytes per second over the whole update's link time.
    public var averageSpeedBytesPerSecond: Double {
        duration.seconds > 0 ? Double(bytesSent) / duration.seconds : 0
    }

    /// Whether this device counts as a failure of the fleet (exit 1).
    public var isFailure: Bool { result == .failed }
}

/// The whole run's report.
public struct FleetReport: Sendable {
    /// One per inventory device, in inventory order.
    public var devices: [FleetDeviceReport]
    /// Real time from the start of discovery to the last device's end.
    public var duration: Duration

    public init(devices: [FleetDeviceReport], duration: Duration) {
        self.devices = devices
        self.duration = duration
    }

    /// How many devices ended with `result`.
    public func count(_ result: FleetDeviceReport.Result) -> Int {
        devices.filter { $0.result == result }.count
    }

    /// Whether no device failed.
    public var succeeded: Bool { !devices.contains { $0.isFailure } }
}

/// What a fleet update reports while it runs: every device's engine events, tagged with the
/// device, and the fleet's own steps.
public enum FleetEvent: Sendable {
    /// A device's place in the plan, once discovery and its read-only probe are done (also when
    /// it was not found).
    case planned(FleetPlanEntry)
    /// An event of a device's update (its `.result` is followed by `.finished`).
    case device(String, DFUEvent)
    /// A device's final report; the last event for that device.
    case finished(FleetDeviceReport)
    /// The rollout stopped starting updates, and why.
    case halted(String)
}

/// What the fleet intends for one device.
public struct FleetPlanEntry: Sendable {
    public var device: String
    /// Whether discovery saw the device.
    public var found: Bool
    public var info: FleetDeviceInfo?
    /// The package it gets and why; nil when none applies or it was not found.
    public var choice: FleetPackageChoice?
    /// The package's version, when it states one.
    public var packageVersion: String?
    /// `update`, `skip`, `forced` or `unknown` as the engine decides; nil when there is nothing
    /// to decide (not found, no package, done in an earlier run).
    public var decision: DFUVersionCheck.Decision?
    /// Why the device is left out, when it is.
    public var note: String?
    /// What the device needs to be paired and where its passkey comes from (never the passkey);
    /// nil when it was not looked at.
    public var security: DeviceSecurity?
    /// The device's image layout as its list shows it, read with the package it gets
    /// (`SMPImageLayout.summary(updatingNetworkCore:)`); nil for a device without an image list.
    public var imageLayout: String?
}
