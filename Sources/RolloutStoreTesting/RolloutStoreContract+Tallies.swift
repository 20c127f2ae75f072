import DFURollout
import Foundation
import XCTest

/// A store that tells the counts it keeps for a rollout (`RolloutTallies`). The counts are the
/// package's own, so only its back ends run `countsStayExact`.
package protocol TallyReading {
    func tally(of rollout: String) async throws -> RolloutRules.Tally
}

extension EmbeddedRolloutStore: TallyReading {}

/// The counts a store keeps instead of reading a rollout's devices on every claim and report.
extension RolloutStoreContract {
    /// The kept counts equal the devices' own after claims, reports, expired leases, refused
    /// stale reports, releases, pause, resume, gateways reporting at once, and cancel.
    package func countsStayExact() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 40, canary: 3))
        try await assertCountsExact(store, spec)
        let canary = try await store.claim(
            spec.name, for: "gw-a", among: nil, limit: 3, lease: backend.shortLease)
        try await store.report(canary[0], DeviceOutcome(result: .completed))
        try await store.report(canary[1], DeviceOutcome(result: .skipped))
        try await assertCountsExact(store, spec)
        try await backend.passTime(beyond: canary[2].expiresAt)
        let takenOver = try await claimOne(store, spec, gateway: "gw-b", lease: RolloutFixtures.longLease)
        XCTAssertEqual(takenOver.device, canary[2].device)
        try await assertLeaseLost { try await store.report(canary[2], DeviceOutcome(result: .failed)) }
        try await assertCountsExact(store, spec)
        try await store.report(takenOver, DeviceOutcome(result: .completed))
        let held = try await store.claim(
            spec.name, for: "gw-a", among: nil, limit: 3, lease: RolloutFixtures.longLease)
        try await store.report(held[0], DeviceOutcome(result: .failed, error: "lost link"))
        try await store.report(held[1], DeviceOutcome(result: .aborted))
        try await store.release(held[2])
        try await assertCountsExact(store, spec)
        try await store.apply(.pause, to: spec.name)
        try await assertCountsExact(store, spec)
        try await store.apply(.resume, to: spec.name)
        try await reportAtOnce(spec, gateways: 4, devices: 32)
        try await assertCountsExact(store, spec)
        try await store.apply(.cancel, to: spec.name)
        let last = try await store.status(of: spec.name).devices.filter { $0.result == nil }.count
        XCTAssertEqual(last, 3)
        try await assertCountsExact(store, spec)
        try await store.close()
    }

    /// `gateways` gateways, each on its own connection, claim and report `devices` devices
    /// between them, every result in turn.
    private func reportAtOnce(_ spec: RolloutSpec, gateways: Int, devices: Int) async throws {
        let reported = try await withThrowingTaskGroup(of: Int.self) { group in
            for gateway in 0..<gateways {
                group.addTask {
                    let store = try await backend.open()
                    var count = 0
                    while count < devices / gateways,
                        let claim = try await store.claim(
                            spec.name, for: "gw\(gateway)", among: nil, limit: 1,
                            lease: RolloutFixtures.longLease
                        ).first
                    {
                        let result = DeviceResult.allCases[(gateway + count) % DeviceResult.allCases.count]
                        try await store.report(claim, DeviceOutcome(result: result))
                        count += 1
                    }
                    try await store.close()
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(reported, devices - devices % gateways)
    }

    /// Fails when a count the store keeps differs from its devices' results.
    package func assertCountsExact(_ store: any RolloutStore, _ spec: RolloutSpec, line: UInt = #line)
        async throws
    {
        let kept = try await XCTUnwrap(store as? any TallyReading, line: line).tally(of: spec.name)
        let devices = try await store.status(of: spec.name).devices
        let canary = devices.prefix(spec.canary).compactMap(\.result)
        var results = Dictionary(uniqueKeysWithValues: DeviceResult.allCases.map { ($0, 0) })
        for result in devices.compactMap(\.result) { results[result, default: 0] += 1 }
        let counted = RolloutRules.Tally(
            failures: results[.failed] ?? 0, canaryFailures: canary.filter { !$0.passesCanary }.count,
            canaryPassed: canary.filter(\.passesCanary).count,
            left: devices.filter { $0.result == nil }.count, results: results)
        XCTAssertEqual(kept, counted, "the kept counts drifted from the devices' results", line: line)
    }
}

extension RolloutStoreContract {
    /// A rollout of 6 devices, canary 2, with one result of each kind (a migration counts it).
    package static func withResults(_ contract: RolloutStoreContract) async throws -> RolloutSpec {
        let (store, spec) = try await contract.created(RolloutFixtures.spec(devices: 6, canary: 2))
        let claims = try await store.claim(
            spec.name, for: "gw", among: nil, limit: 2, lease: RolloutFixtures.longLease)
        try await store.report(claims[0], DeviceOutcome(result: .completed))
        try await store.report(claims[1], DeviceOutcome(result: .skipped))
        for result in [DeviceResult.failed, .aborted] {
            let claim = try await contract.claimOne(
                store, spec, gateway: "gw", lease: RolloutFixtures.longLease)
            try await store.report(claim, DeviceOutcome(result: result))
        }
        try await store.close()
        return spec
    }
}
