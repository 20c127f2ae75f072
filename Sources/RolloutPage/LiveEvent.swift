import DFURollout
import Foundation

/// One server-sent event of a rollout's page: its state, counts and plot, as `/live.js` reads it.
enum LiveEvent {
    static func data(_ view: RolloutView, plot: String) -> String {
        let counts = Dictionary(
            uniqueKeysWithValues: DeviceStanding.allCases.map { ($0.rawValue, view.counts[$0, default: 0]) })
        let object: [String: Any] = [
            "state": view.state.rawValue, "done": view.done, "total": view.total, "counts": counts,
            "plot": plot,
        ]
        let json =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return "data: \(String(decoding: json, as: UTF8.self))\n\n"
    }
}
