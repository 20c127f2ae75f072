import Foundation

/// Why a store refused an operation.
public enum RolloutStoreError: Error, Equatable, Sendable {
    case rolloutExists(String)
    case noSuchRollout(String)
    case noSuchPackage(String)
    /// A device is named twice, or names a package the rollout does not have.
    case invalidSpec(String)
    /// The claim's lease token is no longer the device's (another gateway took it over, it was
    /// released, or the device already has its result): the gateway must stop touching it.
    case leaseLost(device: String)
    /// e.g. resuming a cancelled rollout.
    case invalidTransition(from: RolloutState, command: RolloutCommand)
    case packageDigestMismatch(expected: String, actual: String)
    /// Another running gateway has this name; the store last heard from it at `lastSeen`.
    case gatewayNameInUse(String, lastSeen: Date)
    /// The engine underneath failed (I/O, connection, SQL); its kind says whether it is an
    /// outage or needs a person.
    case storage(StoreFailure)
}
