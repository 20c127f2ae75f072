import DFUSimulator
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// One soak combination run end to end: the faulty update, its invariants, then a clean update
/// of the same device.
struct SoakRun {
    /// What the faulty update ended with: `completed` or the `DFUError`'s name.
    var outcome: String
    /// Broken invariants; empty when the run is clean.
    var violations: [String]

    /// Real-time bound of one update: the simulator answers at once, so only lost answers (each a
    /// short timeout below) take real time.
    static let limit: Duration = .seconds(60)

    init(_ combination: SoakCombination, package: DFUPackage) async throws {
        let harness = try EngineHarness(combination.kind, accepting: package, faults: combination.faults) {
            $0.mtu = combination.mtu
        }
        guard let before = harness.snapshot else { throw SoakSetupError.noDevice }
        var options = EngineHarness.testOptions(prn: combination.prn)
        options.force = true
        // A lost notification costs one of these in real time; the simulator answers at once.
        options.notificationTimeout = .milliseconds(300)
        options.responseTimeout = .milliseconds(600)
        guard let (result, events) = await harness.update(package, options: options, within: Self.limit)
        else {
            outcome = "hang"
            violations = ["no result within \(Self.limit) (real time)"]
            return
        }
        outcome = result.failure?.error.name ?? result.identifier
        violations = Self.resultViolations(result, events, device: harness.device.description)
        let inventory = ImageInventory(package)
        if let after = harness.snapshot {
            violations += inventory.violations(before: before, after: after)
            if result.outcome == .completed { violations += inventory.missing(after: after) }
        }
        violations += await Self.cleanUpdateViolations(harness, package, inventory)
    }

    /// Exactly one `result`, the last event, the one `run` returned; completed or failed with a
    /// message naming the device.
    private static func resultViolations(_ result: DFUResult, _ events: [DFUEvent], device: String)
        -> [String]
    {
        var violations: [String] = []
        let results = events.compactMap { if case .result(let result) = $0 { result } else { nil } }
        if results.count != 1 { violations.append("\(results.count) result events") }
        if case .result = events.last {} else { violations.append("the last event is not the result") }
        if results.last?.identifier != result.identifier { violations.append("the result event differs") }
        switch result.outcome {
        case .completed: break
        case .failed(let failure):
            if !failure.message.contains(device) { violations.append("message without device: \(failure)") }
        default: violations.append("outcome \(result.identifier)")
        }
        return violations
    }

    /// The same device, its faults cleared, takes the update where it advertises now (a device
    /// that started in its bootloader runs its application at another address).
    private static func cleanUpdateViolations(
        _ harness: EngineHarness, _ package: DFUPackage, _ inventory: ImageInventory
    ) async -> [String] {
        harness.central.clearFaults(of: harness.device)
        guard let now = harness.snapshot else { return ["the device is gone"] }
        var options = EngineHarness.testOptions()
        options.force = true
        let target = DeviceIdentifier(now.address)
        guard
            let (result, events) = await harness.update(
                package, options: options, target: target, within: limit)
        else {
            return ["the clean update gave no result within \(limit)"]
        }
        guard result.outcome == .completed else {
            return ["the clean update ended \(result.identifier): \(EngineHarness.logs(events).suffix(600))"]
        }
        guard let after = harness.snapshot else { return ["the device is gone"] }
        return inventory.missing(after: after).map { "after the clean update: \($0)" }
    }
}

enum SoakSetupError: Error { case noDevice }
