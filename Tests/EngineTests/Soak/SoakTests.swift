import DFUSimulator
import FirmwareUpdate
import Foundation
import NordicDFU
import XCTest

/// Random combinations of faults, PRNs, MTUs, device kinds and packages (docs/reliability.md).
/// Every run completes or fails with exactly one `DFUError`, never hangs, never leaves a partial
/// image installed, and the same device then takes the update without faults.
///
/// `DFU_SOAK_SEED` (default 20261124) and `DFU_SOAK_RUNS` (default 400) choose the combinations;
/// `DFU_SOAK_ONLY=INDEX` replays one; `DFU_SOAK_VERBOSE=1` prints every run that did not
/// complete. A failing run prints its seed and combination.
final class SoakTests: XCTestCase {
    private static let environment = ProcessInfo.processInfo.environment
    private let seed = environment["DFU_SOAK_SEED"].flatMap { UInt64($0) } ?? 20_261_124
    private let runs = environment["DFU_SOAK_RUNS"].flatMap { Int($0) } ?? 400
    private let verbose = environment["DFU_SOAK_VERBOSE"] == "1"
    /// Runs at a time: lost notifications wait out real-time timeouts, so a few overlap.
    private let width = 4

    func testRandomFaultCombinations() async throws {
        let packages = try Dictionary(
            uniqueKeysWithValues: SoakCombination.Package.allCases.map { ($0, try $0.load()) })
        let sizes = packages.mapValues { $0.images.map(\.firmware.count).reduce(0, +) }
        let indices = Self.environment["DFU_SOAK_ONLY"].flatMap { Int($0) }.map { [$0] } ?? Array(0..<runs)
        let combinations = indices.map { SoakCombination(seed: seed, index: $0, imageSizes: sizes) }
        let started = ContinuousClock.now
        var outcomes: [String: Int] = [:]
        var failures: [String] = []
        try await withThrowingTaskGroup(of: (SoakCombination, SoakRun).self) { group in
            var pending = combinations.makeIterator()
            func startNext() {
                guard let combination = pending.next() else { return }
                let package = packages[combination.package]!
                group.addTask { (combination, try await SoakRun(combination, package: package)) }
            }
            for _ in 0..<width { startNext() }
            while let (combination, run) = try await group.next() {
                outcomes[run.outcome, default: 0] += 1
                if verbose, run.outcome != "completed" { print("soak \(combination) → \(run.outcome)") }
                if !run.violations.isEmpty {
                    failures.append(
                        "seed \(seed) \(combination) → \(run.outcome): \(run.violations.joined(separator: "; "))"
                            + " (replay: DFU_SOAK_SEED=\(seed) DFU_SOAK_ONLY=\(combination.index))")
                }
                startNext()
            }
        }
        let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print(
            "soak seed \(seed): \(combinations.count) runs in \(ContinuousClock.now - started): "
                + summary.joined(separator: ", "))
        for failure in failures { XCTFail(failure) }
    }
}
