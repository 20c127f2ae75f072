import DFURollout
import Foundation

/// Prints `rollout status` as its pages of devices come (docs/cli-contract.md): the JSON object
/// written in parts on one line, or the lines for people; counts what it printed for the summary
/// and the gateways' lines, so that they agree with the devices shown.
struct RolloutStatusPrinter {
    let summary: RolloutSummary
    let json: Bool
    private var printed = 0
    private var results: [DeviceResult: Int] = [:]
    /// Per gateway, its devices by result, `held` or `given back`.
    private var byGateway: [String: [String: Int]] = [:]

    init(summary: RolloutSummary, json: Bool) {
        self.summary = summary
        self.json = json
    }

    func begin() {
        if json {
            Output.part(
                "{\"rollout\":\(JSONValue.string(summary.rollout).serialized()),"
                    + "\"state\":\(JSONValue.string(summary.state.rawValue).serialized()),\"devices\":[")
        } else {
            Output.line("rollout \(summary.rollout): \(summary.state.rawValue)")
        }
    }

    mutating func print(_ devices: [DeviceStatus]) {
        var text = ""
        for device in devices {
            if let result = device.result { results[result, default: 0] += 1 }
            if let gateway = device.gateway {
                // a device given back without a result is no longer this gateway's
                byGateway[gateway, default: [:]][
                    device.result?.rawValue ?? (device.held ? "held" : "given back"), default: 0] += 1
            }
            if json {
                if printed > 0 { text += "," }
                text += Self.object(device).serialized()
            } else {
                text += Self.line(device) + "\n"
            }
            printed += 1
        }
        Output.part(text)
    }

    func end(gateways: [GatewayStatus]) {
        if json {
            let gateways = gateways.map { gateway in
                JSONValue.object([
                    ("gateway", .string(gateway.name)),
                    ("last_seen", .string(RolloutStatusCommand.timestamp(gateway.lastSeen))),
                ])
            }
            let summary = JSONValue.object(counts.map { ($0, .int($1)) })
            Output.line(
                "],\"gateways\":\(JSONValue.array(gateways).serialized()),\"summary\":\(summary.serialized())}"
            )
            return
        }
        for gateway in gateways {
            let results = byGateway[gateway.name, default: [:]].sorted { $0.key < $1.key }.map {
                "\($1) \($0)"
            }
            Output.line(
                "gateway \(gateway.name): \(results.joined(separator: ", ")), last heard \(RolloutStatusCommand.timestamp(gateway.lastSeen))"
            )
        }
        Output.line(counts.filter { $1 > 0 }.map { "\($1) \($0)" }.joined(separator: ", "))
    }

    /// Ends the JSON line a failed read left open, so that the error follows on a line of its own.
    func breakOff() {
        if json { Output.line("") }
    }

    /// Devices per result, every result named (0 when none), and `pending`: no result yet.
    private var counts: [(String, Int)] {
        DeviceResult.allCases.map { ($0.rawValue, results[$0, default: 0]) } + [
            ("pending", printed - results.values.reduce(0, +))
        ]
    }

    private static func object(_ device: DeviceStatus) -> JSONValue {
        .object([
            ("device", .string(device.device)),
            ("result", device.result.map { .string($0.rawValue) } ?? .null),
            ("gateway", .optional(device.gateway)), ("held", .bool(device.held)),
            ("attempts", .int(device.attempts)), ("error", .optional(device.error)),
            ("reason", .optional(device.reason)),
        ])
    }

    private static func line(_ device: DeviceStatus) -> String {
        var line = "  \(device.device)  \(device.result?.rawValue ?? (device.held ? "held" : "pending"))"
        if let gateway = device.gateway { line += "  gateway \(gateway)" }
        line += "  attempts \(device.attempts)"
        if let error = device.error { line += "  error: \(error)" }
        if let reason = device.reason { line += "  (\(reason))" }
        return line
    }
}
