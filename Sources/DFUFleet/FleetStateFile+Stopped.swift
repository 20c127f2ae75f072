import DFURollout
import Foundation

/// An operator's `rollout pause` or `rollout cancel --store FILE` on a fleet's state file: the
/// fleet stops starting updates, as a gateway does.
extension FleetStateFile {
    /// A write found the state file's rollout paused or cancelled.
    struct RolloutStopped: Error {
        let state: RolloutState
    }

    /// Why a running fleet halts once its rollout was paused or cancelled.
    static func stoppedWhileRunning(_ url: URL, _ stopped: RolloutStopped, rollout: String) -> String {
        if stopped.state == .paused {
            return "\(url.path): its rollout was paused (`rollout pause`); no more updates are started; "
                + "`rollout resume \(rollout) --store \(url.path)`, then run the fleet again to go on"
        }
        return "\(url.path): its rollout was cancelled (`rollout cancel`); no more updates are started"
    }

    /// Why a fleet does not start on a paused or cancelled rollout, and what to do instead: only
    /// a paused one is taken back (`rollout resume`).
    static func stoppedAtStart(_ url: URL, _ state: RolloutState, rollout: String) -> String? {
        switch state {
        case .paused:
            "\(url.path): its rollout is paused (`rollout pause`); "
                + "`rollout resume \(rollout) --store \(url.path)` lets the fleet go on"
        case .cancelled:
            "\(url.path): its rollout was cancelled (`rollout cancel`) and is not resumed; "
                + "`rollout status \(rollout) --store \(url.path)` shows what it recorded; "
                + "delete it to start afresh, or give another --state file"
        case .active, .halted, .completed: nil
        }
    }
}
