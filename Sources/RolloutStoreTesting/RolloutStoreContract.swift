import DFURollout
import Foundation
import XCTest

/// What every back end must do, written once (docs/rollout.md); each back end's test class
/// runs every case against its own store (a third back end's too: one XCTest method per case,
/// as `EmbeddedRolloutStoreTests` does). Each case opens its own connections and closes them.
public struct RolloutStoreContract: Sendable {
    /// The back end every case runs against.
    public let backend: any StoreUnderTest

    /// The contract against `backend`.
    public init(backend: any StoreUnderTest) { self.backend = backend }

    /// Eight gateways, each on its own connection, claim at once until nothing is left: every
    /// device is claimed by exactly one of them.
    public func claimsAreExclusive() async throws {
        let spec = RolloutFixtures.spec(devices: 60)
        let operatorStore = try await backend.open()
        try await operatorStore.create(spec)
        let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
            for gateway in 0..<8 {
                group.addTask {
                    let store = try await backend.open()
                    var mine: [String] = []
                    while case let claims = try await store.claim(
                        spec.name, for: "gw\(gateway)", among: nil, limit: 3, lease: RolloutFixtures.longLease
                    ),
                        !claims.isEmpty
                    {
                        mine += claims.map(\.device)
                    }
                    try await store.close()
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(claimed.count, spec.devices.count, "a device claimed twice, or one left out")
        XCTAssertEqual(Set(claimed), Set(spec.devices.map(\.device)))
        try await operatorStore.close()
    }

    /// A held device is nobody else's; once its lease expires another gateway takes it over with
    /// a newer token, and the first gateway's report is refused.
    public func expiredLeaseIsTakenOver() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 1))
        let first = try await claimOne(store, spec, gateway: "gw-a", lease: backend.shortLease)
        let secondStore = try await backend.open()
        let whileHeld = try await secondStore.claim(
            spec.name, for: "gw-b", among: nil, limit: 1, lease: backend.shortLease)
        XCTAssertEqual(whileHeld, [], "claimed while another gateway's lease runs")
        try await backend.passTime(beyond: first.expiresAt)
        let second = try await claimOne(secondStore, spec, gateway: "gw-b", lease: RolloutFixtures.longLease)
        XCTAssertGreaterThan(second.leaseToken, first.leaseToken)
        XCTAssertEqual(second.attempt, 2)
        try await assertLeaseLost { try await store.report(first, DeviceOutcome(result: .completed)) }
        try await secondStore.report(second, DeviceOutcome(result: .completed))
        let status = try await store.status(of: spec.name)
        XCTAssertEqual(status.gateways.map(\.name), ["gw-a", "gw-b"])
        let device = status.devices[0]
        XCTAssertEqual(device.result, .completed)
        XCTAssertEqual(device.gateway, "gw-b")
        XCTAssertEqual(device.attempts, 2)
        try await store.close()
        try await secondStore.close()
    }

    /// A renewed lease outlives the end the claim had: nobody else can take the device then.
    public func renewalKeepsTheDevice() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 1))
        let claim = try await claimOne(store, spec, gateway: "gw-a", lease: backend.shortLease)
        let renewal = try await store.renew(claim, lease: RolloutFixtures.longLease)
        XCTAssertGreaterThan(renewal.expiresAt, claim.expiresAt)
        XCTAssertEqual(renewal.rolloutState, .active)
        try await backend.passTime(beyond: claim.expiresAt)
        let other = try await store.claim(
            spec.name, for: "gw-b", among: nil, limit: 1, lease: backend.shortLease)
        XCTAssertEqual(other, [], "a renewed lease was taken over")
        try await store.report(claim, DeviceOutcome(result: .completed))
        try await store.close()
    }

    /// Once taken over, the old claim can neither renew, report nor release; a released claim
    /// can no longer report, and its device is free at once.
    public func staleTokensAreFenced() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 2))
        let stale = try await claimOne(store, spec, gateway: "gw-a", lease: backend.shortLease)
        try await backend.passTime(beyond: stale.expiresAt)
        let current = try await claimOne(store, spec, gateway: "gw-b", lease: RolloutFixtures.longLease)
        XCTAssertEqual(current.device, stale.device)
        try await assertLeaseLost { _ = try await store.renew(stale, lease: RolloutFixtures.longLease) }
        try await assertLeaseLost { try await store.release(stale) }
        try await assertLeaseLost {
            try await store.report(stale, DeviceOutcome(result: .failed, error: "stale"))
        }
        try await store.release(current)
        try await assertLeaseLost { try await store.report(current, DeviceOutcome(result: .completed)) }
        let again = try await store.claim(
            spec.name, for: "gw-c", among: [stale.device], limit: 1, lease: RolloutFixtures.longLease)
        XCTAssertEqual(again.map(\.device), [stale.device], "a released device is not free")
        let resultAfterRelease = try await store.status(of: spec.name).devices[0].result
        XCTAssertEqual(resultAfterRelease, nil)
        try await store.close()
    }

    /// A result is recorded once: a second report of it is refused and changes nothing, and the
    /// device is never claimed again, however much time passes.
    public func resultsAreFinal() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 2))
        let claim = try await claimOne(store, spec, gateway: "gw-a", lease: backend.shortLease)
        try await store.report(
            claim, DeviceOutcome(result: .failed, error: "lost link", report: Data("{}".utf8)))
        try await assertLeaseLost { try await store.report(claim, DeviceOutcome(result: .completed)) }
        try await backend.passTime(beyond: claim.expiresAt)
        let later = try await store.claim(
            spec.name, for: "gw-b", among: nil, limit: 5, lease: backend.shortLease)
        XCTAssertFalse(later.map(\.device).contains(claim.device), "a device with a result was claimed again")
        let device = try await store.status(of: spec.name).devices.first { $0.device == claim.device }
        XCTAssertEqual(device?.result, .failed)
        XCTAssertEqual(device?.error, "lost link")
        XCTAssertEqual(device?.report, Data("{}".utf8))
        try await store.close()
    }

    /// A device is held from its claim until its gateway reports it or gives it back; the status
    /// names that gateway all along, as the one that held it last.
    public func heldUntilReportedOrGivenBack() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 2))
        let given = try await claimOne(store, spec, gateway: "gw-a", lease: RolloutFixtures.longLease)
        let reported = try await claimOne(store, spec, gateway: "gw-a", lease: RolloutFixtures.longLease)
        let whileHeld = try await store.status(of: spec.name).devices
        XCTAssertEqual(whileHeld.map(\.held), [true, true])
        try await store.release(given)
        try await store.report(reported, DeviceOutcome(result: .completed))
        let devices = try await store.status(of: spec.name).devices
        XCTAssertEqual(devices.map(\.held), [false, false])
        XCTAssertEqual(devices.map(\.gateway), ["gw-a", "gw-a"])
        try await store.close()
    }

    /// One running gateway per name: another instance is refused while the first's presence
    /// runs, and takes the name once it was withdrawn or ran out.
    public func oneRunningGatewayPerName() async throws {
        let store = try await backend.open()
        let name = "gw-\(UUID().uuidString.prefix(8))"
        try await store.announce(name, instance: "a", presence: backend.shortLease)
        try await store.announce(name, instance: "a", presence: backend.shortLease)
        do {
            try await store.announce(name, instance: "b", presence: RolloutFixtures.longLease)
            XCTFail("a second gateway took the name \(name)")
        } catch RolloutStoreError.gatewayNameInUse(let inUse, _) {
            XCTAssertEqual(inUse, name)
        }
        try await store.withdraw(name, instance: "a")
        let presence = try await store.announce(name, instance: "b", presence: backend.shortLease)
        try await backend.passTime(beyond: presence)
        try await store.announce(name, instance: "c", presence: RolloutFixtures.longLease)
        try await store.close()
    }

    /// Only the devices a gateway sees are claimed for it.
    public func claimsOnlyVisibleDevices() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 4))
        let seen: Set<String> = [spec.devices[1].device, spec.devices[3].device]
        let claims = try await store.claim(
            spec.name, for: "gw-a", among: seen, limit: 10, lease: backend.shortLease)
        XCTAssertEqual(Set(claims.map(\.device)), seen)
        XCTAssertTrue(claims.allSatisfy { $0.packageSHA256 == RolloutFixtures.package.sha256 })
        try await store.close()
    }

    // MARK: - Helpers

    func created(_ spec: RolloutSpec) async throws -> (any RolloutStore, RolloutSpec) {
        let store = try await backend.open()
        try await store.create(spec)
        return (store, spec)
    }

    func claimOne(_ store: any RolloutStore, _ spec: RolloutSpec, gateway: String, lease: Duration)
        async throws
        -> DeviceClaim
    {
        let claims = try await store.claim(spec.name, for: gateway, among: nil, limit: 1, lease: lease)
        return try XCTUnwrap(claims.first, "\(gateway) claimed nothing")
    }

    func assertLeaseLost(_ body: () async throws -> Void, line: UInt = #line) async throws {
        do {
            try await body()
            XCTFail("a stale claim was accepted", line: line)
        } catch RolloutStoreError.leaseLost {
        }
    }
}
