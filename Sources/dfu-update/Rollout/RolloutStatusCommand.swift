import ArgumentParser
import DFURollout
import Foundation

/// `dfu-update rollout status NAME`: the rollout per device and per gateway.
struct RolloutStatusCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a rollout: its state, each device's result, gateway and attempts, and a summary.",
        discussion: """
            With --json, one object: {"rollout", "state", "devices": [{"device", "result", \
            "gateway", "held", "attempts", "error", "reason"}], "gateways": [{"gateway", \
            "last_seen"}], "summary": {"completed", "skipped", "failed", "aborted", "pending"}}; a \
            device's result is null until a gateway reports it, its error null unless it failed. \
            `rollout list` names the store's rollouts.
            """)

    @OptionGroup var options: RolloutTargetOptions

    var json: Bool { options.json }
    var logging: LoggingOptions { options.logging }

    func run() async throws {
        let name = options.name
        let status = try await withStore(options.store) { try await $0.status(of: name) }
        if json {
            Output.line(Self.object(status))
        } else {
            Self.printForPeople(status)
        }
    }

    static func object(_ status: RolloutStatus) -> JSONValue {
        let devices = status.devices.map { device in
            JSONValue.object([
                ("device", .string(device.device)),
                ("result", device.result.map { .string($0.rawValue) } ?? .null),
                ("gateway", .optional(device.gateway)), ("held", .bool(device.held)),
                ("attempts", .int(device.attempts)), ("error", .optional(device.error)),
                ("reason", .optional(device.reason)),
            ])
        }
        let gateways = status.gateways.map { gateway in
            JSONValue.object([
                ("gateway", .string(gateway.name)), ("last_seen", .string(timestamp(gateway.lastSeen))),
            ])
        }
        return .object([
            ("rollout", .string(status.rollout)), ("state", .string(status.state.rawValue)),
            ("devices", .array(devices)), ("gateways", .array(gateways)),
            ("summary", .object(summary(status).map { ($0, .int($1)) })),
        ])
    }

    /// Devices per result, every result named (0 when none), and `pending`: no result yet.
    static func summary(_ status: RolloutStatus) -> [(String, Int)] {
        let counts = status.summary
        return DeviceResult.allCases.map { ($0.rawValue, counts[$0, default: 0]) } + [
            ("pending", status.devices.count { $0.result == nil })
        ]
    }

    /// ISO 8601, UTC, to the millisecond.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func printForPeople(_ status: RolloutStatus) {
        Output.line("rollout \(status.rollout): \(status.state.rawValue)")
        for device in status.devices {
            var line = "  \(device.device)  \(device.result?.rawValue ?? (device.held ? "held" : "pending"))"
            if let gateway = device.gateway { line += "  gateway \(gateway)" }
            line += "  attempts \(device.attempts)"
            if let error = device.error { line += "  error: \(error)" }
            if let reason = device.reason { line += "  (\(reason))" }
            Output.line(line)
        }
        for gateway in status.gateways {
            let devices = status.devices.filter { $0.gateway == gateway.name }
            // a device given back without a result is no longer this gateway's
            let results = Dictionary(grouping: devices) {
                $0.result?.rawValue ?? ($0.held ? "held" : "given back")
            }
            .sorted { $0.key < $1.key }.map { "\($1.count) \($0)" }
            Output.line(
                "gateway \(gateway.name): \(results.joined(separator: ", ")), last heard \(timestamp(gateway.lastSeen))"
            )
        }
        Output.line(summary(status).filter { $1 > 0 }.map { "\($1) \($0)" }.joined(separator: ", "))
    }
}

extension DeviceStatus {
    /// Why the device ended as it did (`up to date` for a skip), from the fleet report the
    /// gateway stored with its result.
    var reason: String? {
        guard let report, let object = try? JSONSerialization.jsonObject(with: report) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}
