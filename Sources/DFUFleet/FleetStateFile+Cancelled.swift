import Foundation

/// An operator's `rollout cancel --store FILE` on a fleet's state file: the fleet stops.
extension FleetStateFile {
    /// A write found the state file's rollout cancelled.
    struct RolloutCancelled: Error {}

    /// Why a running fleet halts once its rollout was cancelled.
    static func cancelledWhileRunning(_ url: URL) -> String {
        "\(url.path): its rollout was cancelled (`rollout cancel`); no more updates are started"
    }

    /// Why a fleet does not resume a cancelled rollout, and what to do instead: no `rollout`
    /// command takes a cancelled rollout back.
    static func cancelledAtStart(_ url: URL, rollout: String) -> String {
        "\(url.path): its rollout was cancelled (`rollout cancel`) and is not resumed; "
            + "`rollout status \(rollout) --store \(url.path)` shows what it recorded; "
            + "delete it to start afresh, or give another --state file"
    }
}
