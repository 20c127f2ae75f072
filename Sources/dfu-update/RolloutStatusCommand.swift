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
            "gateway", "attempts", "error"}], "gateways": [{"gateway", "last_seen"}], "summary": \
            {"completed", "skipped", "failed", "aborted", "pending"}}; a device's result is null \
            until a gateway reports it.
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
                ("gateway", device.gateway.map { .string($0) } ?? .null), ("attempts", .int(device.attempts)),
                ("error", device.error.map { .string($0) } ?? .null),
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
    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func printForPeople(_ status: RolloutStatus) {
        Output.line("rollout \(status.rollout): \(status.state.rawValue)")
        for device in status.devices {
            var line = "  \(device.device)  \(device.result?.rawValue ?? "pending")"
            if let gateway = device.gateway { line += "  gateway \(gateway)" }
            line += "  attempts \(device.attempts)"
            if let error = device.error { line += "  error: \(error)" }
            Output.line(line)
        }
        for gateway in status.gateways {
            let devices = status.devices.filter { $0.gateway == gateway.name }
            let results = Dictionary(grouping: devices) { $0.result?.rawValue ?? "held" }
                .sorted { $0.key < $1.key }.map { "\($1.count) \($0)" }
            Output.line(
                "gateway \(gateway.name): \(results.joined(separator: ", ")), last heard \(timestamp(gateway.lastSeen))"
            )
        }
        Output.line(summary(status).filter { $1 > 0 }.map { "\($1) \($0)" }.joined(separator: ", "))
    }
}
