import DFURollout

extension CommandFailure {
    /// The contract's report of a store's refusal (docs/cli-contract.md, "rollout"): the
    /// refusal's own words (`RolloutStoreError.description`), with what to do where a person can.
    init(_ error: RolloutStoreError) {
        let said = error.description
        switch error {
        case .rolloutExists:
            self.init(usage: "\(said); choose another name", errorClass: "rollout_exists")
        case .noSuchRollout:
            self.init(usage: "\(said); `rollout list` names those it has", errorClass: "no_such_rollout")
        case .invalidTransition(let state, _):
            self.init(usage: "\(said); \(Self.afterwards(state))", errorClass: "invalid_transition")
        case .invalidSpec, .noSuchPackage:
            self.init(usage: said, errorClass: "invalid_rollout")
        case .packageDigestMismatch:
            self.init(errorClass: "package_digest_mismatch", message: said, exitCode: .invalidPackage)
        case .leaseLost:
            self.init(errorClass: "lease_lost", message: said, exitCode: .updateFailed)
        case .gatewayNameInUse(let name, let lastSeen):
            self.init(
                usage: "another gateway named \(name) is running on this store (last heard from "
                    + "\(RolloutStatusCommand.timestamp(lastSeen))); give this one another --name, or stop that one",
                errorClass: "gateway_name_in_use")
        case .storage(let failure) where failure.kind == .notAStore:
            self.init(usage: failure.message, errorClass: "not_a_store")
        case .storage:
            self.init(errorClass: "store_error", message: said, exitCode: .updateFailed)
        }
    }

    /// What a person can do with a rollout in `state`, which no command takes elsewhere.
    private static func afterwards(_ state: RolloutState) -> String {
        switch state {
        case .completed:
            "every device has its result (`rollout status` shows them); `rollout create` makes a new rollout"
        case .cancelled:
            "a cancelled rollout is not taken back; `rollout retry` makes a new one of the devices it left"
        case .halted:
            "a halted rollout is not resumed; `rollout retry` makes a new one of the devices it left, "
                + "once what failed is understood"
        default: "`rollout status` shows its state"
        }
    }

    private init(usage message: String, errorClass: String) {
        self.init(errorClass: errorClass, message: message, exitCode: .usage)
    }
}
