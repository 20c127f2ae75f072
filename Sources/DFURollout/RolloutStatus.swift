import Foundation

/// A rollout as a whole, for `rollout status`: its summary, every device and the gateways.
public struct RolloutStatus: Sendable, Equatable {
    /// The rollout's settings, state and counts, as ``RolloutStore/summary(of:)`` gives them.
    public var summary: RolloutSummary
    /// In inventory order.
    public var devices: [DeviceStatus]
    /// The gateways that have claimed devices of this rollout, by name.
    public var gateways: [GatewayStatus]

    public init(summary: RolloutSummary, devices: [DeviceStatus], gateways: [GatewayStatus]) {
        self.summary = summary
        self.devices = devices
        self.gateways = gateways
    }

    /// The status of a rollout with these settings and devices, its counts taken from `devices`.
    public init(
        rollout: String, state: RolloutState, canary: Int, maxFailures: Int?, concurrency: Int,
        devices: [DeviceStatus], gateways: [GatewayStatus]
    ) {
        let results = devices.reduce(into: [DeviceResult: Int]()) { counts, device in
            if let result = device.result { counts[result, default: 0] += 1 }
        }
        self.init(
            summary: RolloutSummary(
                rollout: rollout, state: state, canary: canary, maxFailures: maxFailures,
                concurrency: concurrency, devices: devices.count, results: results),
            devices: devices, gateways: gateways)
    }
}

/// One device of a rollout as the store holds it.
public struct DeviceStatus: Sendable, Equatable {
    public var device: String
    /// nil until a gateway reports it.
    public var result: DeviceResult?
    /// The gateway that holds it now, or that held it last.
    public var gateway: String?
    /// Whether `gateway` holds it now: false once it reported the device or gave it back.
    public var held: Bool
    /// Claims taken of it so far.
    public var attempts: Int
    public var error: String?
    public var report: Data?

    public init(
        device: String, result: DeviceResult?, gateway: String?, held: Bool = false, attempts: Int,
        error: String?, report: Data?
    ) {
        self.device = device
        self.result = result
        self.gateway = gateway
        self.held = held
        self.attempts = attempts
        self.error = error
        self.report = report
    }
}

/// A gateway as the store last heard from it (a claim or a renewal).
public struct GatewayStatus: Sendable, Equatable {
    public var name: String
    /// In the store's clock.
    public var lastSeen: Date

    public init(name: String, lastSeen: Date) {
        self.name = name
        self.lastSeen = lastSeen
    }
}
