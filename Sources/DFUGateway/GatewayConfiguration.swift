import DFUFleet
import Metrics

/// How a gateway agent works (docs/gateway.md).
public struct GatewayConfiguration: Sendable {
    /// The gateway's name in the store: its claims, and the rollout's status, carry it.
    public var name: String
    /// How long a claim holds a device without a renewal. The gateway renews at a third of it,
    /// and stops writing to the device once its own count of the lease runs out unrenewed.
    public var lease: Duration = .seconds(30)
    /// How often the gateway looks for new work when it has room for more.
    public var pollInterval: Duration = .seconds(2)
    /// The most devices this gateway updates at once, over every rollout.
    public var concurrency = 4
    /// How long one look for the devices in range scans its Bluetooth adapters.
    public var scanWindow: Duration = .seconds(3)
    /// Stop once no rollout has work this gateway can do.
    public var exitWhenIdle = false
    /// Each device's update, as `fleet` runs it (retries, bounds, read-back, engine options);
    /// the rollout's own canary and failure limit are the store's, not these.
    public var fleet = FleetOptions()
    /// Where the gateway's series go (docs/metrics.md): swift-metrics' bootstrapped backend
    /// unless given another (a test's own registry).
    public var metrics: any MetricsFactory = MetricsSystem.factory

    public init(name: String) { self.name = name }

    /// How long the store counts this gateway as running after it last said so (at a look for
    /// work, once per poll interval at most): a few looks, so that one slow store call does not lose the name, and
    /// short, so that a gateway that died frees its name soon.
    var presence: Duration { pollInterval * 3 + .seconds(5) }

    /// When a renewal is due after the last one.
    var heartbeat: Duration { lease / 3 }

    /// How long after a renewal was sent the gateway still counts the lease as its own: less
    /// than the lease, so that it stops before the store's lease (counted from the later
    /// moment the store took the renewal) runs out.
    var trustedLease: Duration { lease * 0.8 }
}
