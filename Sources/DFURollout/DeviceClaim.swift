import Foundation

/// A gateway's hold on one device: valid while its lease has not expired and its token is still
/// the device's. Every renewal, report and release presents the token (fencing): once another
/// gateway has taken the device over, the token is stale and the store refuses it.
public struct DeviceClaim: Sendable, Equatable {
    public var rollout: String
    public var device: String
    public var gateway: String
    /// The device's lease epoch: one more with every claim of the device, never reused.
    public var leaseToken: Int64
    /// In the store's clock. A gateway that has not renewed by then must stop writing.
    public var expiresAt: Date
    /// This claim's attempt, from 1.
    public var attempt: Int
    /// What the rollout says the device gets; nil: the inventory's rules choose.
    public var packageSHA256: String?

    public init(
        rollout: String, device: String, gateway: String, leaseToken: Int64, expiresAt: Date, attempt: Int,
        packageSHA256: String?
    ) {
        self.rollout = rollout
        self.device = device
        self.gateway = gateway
        self.leaseToken = leaseToken
        self.expiresAt = expiresAt
        self.attempt = attempt
        self.packageSHA256 = packageSHA256
    }
}

/// The answer to a renewal: the lease's new end, and the rollout's state (a gateway aborts the
/// update when it reads `cancelled`).
public struct LeaseRenewal: Sendable, Equatable {
    public var expiresAt: Date
    public var rolloutState: RolloutState

    public init(expiresAt: Date, rolloutState: RolloutState) {
        self.expiresAt = expiresAt
        self.rolloutState = rolloutState
    }
}
