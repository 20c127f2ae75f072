import DFURollout
import Foundation
import GATT

/// What one run of a gateway's loop knows (`GatewayLoop`): its claims, the rollouts it has
/// loaded, and its view of the store.
struct GatewayLoopState {
    /// Devices claimed and not ended here, by the identifier and the rollout.
    var running: [DeviceIdentifier: String] = [:]
    /// Of `running`, the devices whose update ended with a result whose report is under
    /// way (`GatewayDeviceRun.updateEnded`): their slots are free.
    var reporting: Set<DeviceIdentifier> = []
    var contexts: [String: RolloutContext] = [:]
    /// Of each rollout, the identifiers seen so far that the store was asked about, and
    /// those of them that are its devices, by the name the store knows each by (a rollout's
    /// devices never change): the store is asked once per identifier (`learnMembers`).
    var asked: [String: Set<DeviceIdentifier>] = [:]
    var members: [String: [DeviceIdentifier: String]] = [:]
    /// The rollouts the store was asked about every simulated device of.
    var askedSimulated: Set<String> = []
    /// Of each rollout, its devices this gateway has found that have no result as far as it
    /// knows, in the order it claims them (`candidates`).
    var queue: [String: ClaimQueue] = [:]
    /// Of each rollout, its devices found since its entries were last read (`readEntries`).
    var unread: [String: [String]] = [:]
    var unusable: Set<String> = []
    /// Of each rollout, the devices this gateway gave back for a reason of its own
    /// (`GatewayDeviceRun.End.setAside`): not claimed again, and no work when it decides
    /// whether it is idle.
    var setAside: [String: Set<String>] = [:]
    /// Of each rollout, the devices this gateway did not find on the adapter their inventory
    /// entry names, with that adapter (`GatewayDeviceRun.End.notHeardOn`): claimed again, and
    /// work when it decides whether it is idle, only once that adapter hears them.
    var pinned: [String: [String: String]] = [:]
    /// Paused rollouts the gateway said it waits for (`waiting`), until they are no longer.
    var waitingFor: Set<String> = []
    var storeAway = false
    /// When the store last took the gateway's presence, and its rollouts as last read
    /// (`GatewayLoop+Polling`).
    var announced: ContinuousClock.Instant?
    var rollouts: (names: [String], read: ContinuousClock.Instant)?

    /// The slots taken: devices being updated, not those whose result is being reported.
    var slotsTaken: Int { running.count - reporting.count }

    /// The slots taken by the rollout's devices.
    func slotsTaken(by rollout: String) -> Int {
        running.count(where: { $0.value == rollout && !reporting.contains($0.key) })
    }
}
