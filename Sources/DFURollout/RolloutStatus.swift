import Foundation

/// A rollout as a whole, for `rollout status`.
public struct RolloutStatus: Sendable, Equatable {
    public var rollout: String
    public var state: RolloutState
    public var canary: Int
    public var maxFailures: Int?
    public var concurrency: Int
    /// In inventory order.
    public var devices: [DeviceStatus]
    /// The gateways that have claimed devices of this rollout, by name.
    public var gateways: [GatewayStatus]

    public init(
        rollout: String, state: RolloutState, canary: Int, maxFailures: Int?, concurrency: Int,
        devices: [DeviceStatus], gateways: [GatewayStatus]
    ) {
        self.rollout = rollout
        self.state = state
        self.canary = canary
        self.maxFailures = maxFailures
        self.concurrency = concurrency
        self.devices = devices
        self.gateways = gateways
    }

    /// How many devices ended with each result.
    public var summary: [DeviceResult: Int] {
        devices.reduce(into: [:]) { counts, device in
            if let result = device.result { counts[result, default: 0] += 1 }
        }
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
