import DFURollout

extension CommandFailure {
    /// The contract's report of a store's refusal (docs/cli-contract.md, "rollout").
    init(_ error: RolloutStoreError) {
        switch error {
        case .rolloutExists(let name):
            self.init(
                usage: "a rollout named \(name) exists already; choose another name",
                errorClass: "rollout_exists")
        case .noSuchRollout(let name):
            self.init(
                usage: "the store has no rollout named \(name); `rollout list` names those it has",
                errorClass: "no_such_rollout")
        case .invalidTransition(let state, let command):
            self.init(
                usage: "a rollout that is \(state.rawValue) cannot be told to \(command.rawValue)",
                errorClass: "invalid_transition")
        case .invalidSpec(let message):
            self.init(usage: message, errorClass: "invalid_rollout")
        case .noSuchPackage(let digest):
            self.init(usage: "the rollout has no package \(digest)", errorClass: "invalid_rollout")
        case .packageDigestMismatch(let expected, let actual):
            self.init(
                errorClass: "package_digest_mismatch",
                message: "a package's bytes hash to \(actual), not \(expected); the store's copy is damaged",
                exitCode: .invalidPackage)
        case .leaseLost(let device):
            self.init(
                errorClass: "lease_lost", message: "the lease on \(device) was lost to another gateway",
                exitCode: .updateFailed)
        case .gatewayNameInUse(let name, let lastSeen):
            self.init(
                usage: "another gateway named \(name) is running on this store (last heard from "
                    + "\(RolloutStatusCommand.timestamp(lastSeen))); give this one another --name, or stop that one",
                errorClass: "gateway_name_in_use")
        case .storage(let failure):
            self.init(
                errorClass: "store_error", message: "the rollout store failed: \(failure.message)",
                exitCode: .updateFailed)
        }
    }

    private init(usage message: String, errorClass: String) {
        self.init(errorClass: errorClass, message: message, exitCode: .usage)
    }
}
