import FirmwareUpdate
import GATT
import NordicDFU

/// How a fleet update runs (docs/fleet.md).
public struct FleetOptions: Sendable {
    /// The most devices updated at once, over all adapters.
    public var concurrency = 4
    /// Options of every device's update; `force` is set per device from the inventory.
    public var update = DFUOptions()
    /// Bound on the one discovery scan per adapter (real time).
    public var discoveryTimeout: Duration = .seconds(10)
    /// Whole-update attempts per device: a retryable failure (lost link, failed connection) is
    /// retried after a backoff, at most this many times.
    public var retries = 2
    /// The wait before retry k is `backoff · 2^(k−1)`, on the device's link time.
    public var backoff: Duration = .seconds(2)
    /// Bound on one device's whole update, retries included (real time); it is then aborted,
    /// so that it can take the update again, and reported as failed.
    public var deviceTimeout: Duration = .seconds(600)
    /// Dry run: discover and read every device, choose its package, write nothing.
    public var plan = false
    /// Update this many devices first, and go on only if they all complete (or are up to date).
    public var canary = 0
    /// Stop starting updates once this many devices have failed; nil: never stop.
    public var maximumFailures: Int?
    /// After each update, reconnect and read the version the device now reports.
    public var readBack = true
    /// Hand the link of a device's probe to its update, which then does not disconnect and
    /// connect again: for a run that updates each device right after probing it (a gateway's
    /// fleet of one). A fleet probes all its devices before its first update, so it leaves this
    /// off. An SMP device's probe subscribed to its SMP characteristic, so its link is closed.
    public var handsProbeLinkToUpdate = false
    /// Addresses of devices outside this run (the rest of a rollout, when a gateway runs one of
    /// its devices): never looked for or taken as one of this run's devices' bootloaders.
    public var reservedAddresses: Set<BluetoothAddress> = []
    /// The security of devices the inventory says nothing about (the command line's passkey
    /// source); the inventory's entries, rules and defaults take precedence.
    public var security = DeviceSecurity()
    /// Keep the bonds this run made; otherwise each is removed once its device is done, so that
    /// thousands of devices do not fill bluetoothd's and the controller's storage.
    public var keepsBonds = false
    /// Remove the bond this host holds for each device when the run first meets it, so that it
    /// pairs again (a device that lost its keys); the new bond is kept, as the one it replaces.
    public var removesBondsFirst = false
    /// Whether numeric comparison is accepted: an authenticated pairing without a passkey.
    public var acceptsNumericComparison = false

    public init() {}
}
