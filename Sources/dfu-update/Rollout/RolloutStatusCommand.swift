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
            The devices are read and printed a page at a time. `rollout list` names the store's \
            rollouts.
            """)

    /// Devices read from the store at a time: a large rollout is never held whole.
    static let pageSize = 1000

    @OptionGroup var options: RolloutTargetOptions

    var json: Bool { options.json }
    var logging: LoggingOptions { options.logging }

    func run() async throws {
        let name = options.name
        let json = json
        try await withStore(options.store) { store in
            let summary = try await store.summary(of: name)
            var page = try await store.devices(of: name, from: 0, limit: Self.pageSize)
            var printer = RolloutStatusPrinter(summary: summary, json: json)
            printer.begin()
            do {
                var position = 0
                while true {
                    printer.print(page)
                    guard page.count == Self.pageSize else { break }
                    position += page.count
                    page = try await store.devices(of: name, from: position, limit: Self.pageSize)
                }
                printer.end(gateways: try await store.gateways(of: name))
            } catch {
                printer.breakOff()
                throw error
            }
        }
    }

    /// ISO 8601, UTC, to the millisecond.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
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
