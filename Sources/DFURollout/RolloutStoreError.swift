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

extension RolloutStoreError: CustomStringConvertible {
    /// The refusal in a few words, for a log line or an event's reason (never a type dump).
    public var description: String {
        switch self {
        case .rolloutExists(let name): "a rollout named \(name) exists already"
        case .noSuchRollout(let name): "the store has no rollout named \(name)"
        case .noSuchPackage(let digest): "the rollout has no package \(digest)"
        case .invalidSpec(let message): message
        case .leaseLost(let device): "the lease on \(device) was lost to another gateway"
        case .invalidTransition(let state, let command):
            "a rollout that is \(state.rawValue) cannot be told to \(command.rawValue)"
        case .packageDigestMismatch(let expected, let actual):
            "a package's bytes hash to \(actual), not \(expected); the store's copy is damaged"
        case .gatewayNameInUse(let name, _): "another gateway named \(name) is running on this store"
        case .storage(let failure): "the rollout store failed: \(failure.message)"
        }
    }
}
