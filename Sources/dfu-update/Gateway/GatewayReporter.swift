import DFUGateway
import DFURollout
import DFUSimulator

/// Prints a gateway's events: with `--json` the contract's JSON Lines (each device's fleet
/// events, the `simulator` event of each simulated device it updated, and the gateway's own),
/// else one line per claim, result and store outage.
struct GatewayReporter: Sendable {
    private let json: Bool
    private let fleet: FleetReporter

    init(json: Bool, simulated: [String: SimulatedCentral]) {
        self.json = json
        fleet = FleetReporter(json: json, plan: false, simulated: simulated, live: false)
    }

    /// Called in the agent's tasks as events happen.
    func observe(_ event: GatewayEvent) {
        switch event {
        case .fleet(_, let fleetEvent):
            fleet.observe(fleetEvent)
        case .claimed(let claim):
            line(
                "claimed", claim, [("gateway", .string(claim.gateway)), ("attempt", .int(claim.attempt))],
                text: "claimed (attempt \(claim.attempt))")
        case .reported(let claim, let result):
            // on a terminal the fleet's own line for the device says how it ended
            guard json else { return }
            line("reported", claim, [("result", .string(result.rawValue))], text: "")
        case .released(let claim, let reason):
            line("released", claim, [("reason", .string(reason))], text: "given back: \(reason)")
        case .leaseLost(let claim, let reason):
            line("lease_lost", claim, [("reason", .string(reason))], text: "no longer held: \(reason)")
        case .storeUnavailable(let message):
            gatewayLine(
                [("event", .string("store_unavailable")), ("message", .string(message))],
                text: "the rollout store cannot be reached (\(message)); trying again")
        case .storeAvailable:
            gatewayLine([("event", .string("store_available"))], text: "the rollout store answers again")
        case .rolloutUnusable(let rollout, let reason):
            gatewayLine(
                [
                    ("event", .string("rollout_unusable")), ("rollout", .string(rollout)),
                    ("reason", .string(reason)),
                ], text: "rollout \(rollout) cannot be worked on here: \(reason)")
        case .waiting(let rollout, let reason):
            gatewayLine(
                [("event", .string("waiting")), ("rollout", .string(rollout)), ("reason", .string(reason))],
                text: "waiting for rollout \(rollout): \(reason)")
        case .nameInUse:
            break  // the command's error says it
        case .idle:
            gatewayLine([("event", .string("idle"))], text: "no rollout has work for this gateway; exiting")
        }
    }

    private func line(_ event: String, _ claim: DeviceClaim, _ members: [(String, JSONValue)], text: String) {
        if json {
            Output.line(
                .object(
                    [
                        ("event", .string(event)), ("device", .string(claim.device)),
                        ("rollout", .string(claim.rollout)),
                    ]
                        + members))
        } else {
            Output.error("\(claim.rollout): \(claim.device) \(text)")
        }
    }

    private func gatewayLine(_ members: [(String, JSONValue)], text: String) {
        if json {
            Output.line(.object([members[0], ("device", .null)] + members.dropFirst()))
        } else {
            Output.error(text)
        }
    }
}
