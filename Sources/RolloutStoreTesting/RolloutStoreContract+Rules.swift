import DFURollout
import Foundation
import XCTest

/// The rollout-wide rules, and what the store keeps.
extension RolloutStoreContract {
    /// Only the canary is claimed until every canary device passed; then the rest.
    public func canaryGoesFirst() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 6, canary: 2))
        let canary = try await claimAll(store, spec)
        XCTAssertEqual(canary.map(\.device), spec.devices.prefix(2).map(\.device))
        try await store.report(canary[0], DeviceOutcome(result: .completed))
        let pastRunningCanary = try await claimAll(store, spec)
        XCTAssertEqual(pastRunningCanary, [], "claimed past a canary still running")
        try await store.report(canary[1], DeviceOutcome(result: .skipped))
        let afterCanary = try await claimAll(store, spec).map(\.device)
        XCTAssertEqual(afterCanary, spec.devices.dropFirst(2).map(\.device))
        try await store.close()
    }

    /// A canary device that fails halts the rollout: nothing more is claimed, and the canary
    /// still running may report.
    public func canaryFailureHalts() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 6, canary: 2))
        let canary = try await claimAll(store, spec)
        let afterCanaryFailure = try await store.report(
            canary[0], DeviceOutcome(result: .failed, error: "bad image"))
        XCTAssertEqual(afterCanaryFailure, .halted)
        try await store.report(canary[1], DeviceOutcome(result: .completed))
        let afterHalt = try await claimAll(store, spec)
        XCTAssertEqual(afterHalt, [])
        let state = try await store.status(of: spec.name).summary.state
        XCTAssertEqual(state, .halted)
        try await store.close()
    }

    /// The rollout halts when its failures reach `maxFailures`, not before.
    public func maxFailuresHalts() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 8, maxFailures: 2))
        let claims = try await store.claim(
            spec.name, for: "gw", among: nil, limit: 3, lease: RolloutFixtures.longLease)
        let afterFirstFailure = try await store.report(claims[0], DeviceOutcome(result: .failed))
        XCTAssertEqual(afterFirstFailure, .active)
        let afterAbort = try await store.report(claims[1], DeviceOutcome(result: .aborted))
        XCTAssertEqual(afterAbort, .active)
        let afterSecondFailure = try await store.report(claims[2], DeviceOutcome(result: .failed))
        XCTAssertEqual(afterSecondFailure, .halted)
        let afterHalt = try await claimAll(store, spec)
        XCTAssertEqual(afterHalt, [])
        let summary = try await store.status(of: spec.name).summary.results
        XCTAssertEqual(summary, [.failed: 2, .aborted: 1])
        try await store.close()
    }

    /// Pause stops claims but not held leases; resume starts them again; cancel stops claims
    /// and tells renewing gateways to abort; a cancelled rollout cannot be resumed.
    public func pauseResumeCancel() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 4))
        let held = try await claimOne(store, spec, gateway: "gw", lease: RolloutFixtures.longLease)
        let paused = try await store.apply(.pause, to: spec.name)
        XCTAssertEqual(paused, .paused)
        let whilePaused = try await claimAll(store, spec)
        XCTAssertEqual(whilePaused, [])
        let stateWhilePaused = try await store.renew(held, lease: RolloutFixtures.longLease).rolloutState
        XCTAssertEqual(stateWhilePaused, .paused)
        let resumed = try await store.apply(.resume, to: spec.name)
        XCTAssertEqual(resumed, .active)
        let claimedAfterResume = try await claimAll(store, spec).count
        XCTAssertEqual(claimedAfterResume, 3)
        let cancelled = try await store.apply(.cancel, to: spec.name)
        XCTAssertEqual(cancelled, .cancelled)
        let stateAfterCancel = try await store.renew(held, lease: RolloutFixtures.longLease).rolloutState
        XCTAssertEqual(stateAfterCancel, .cancelled)
        try await store.report(held, DeviceOutcome(result: .aborted, error: "cancelled"))
        do {
            try await store.apply(.resume, to: spec.name)
            XCTFail("a cancelled rollout resumed")
        } catch RolloutStoreError.invalidTransition(from: .cancelled, command: .resume) {}
        try await store.close()
    }

    /// The last result completes the rollout.
    public func lastResultCompletes() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 3))
        let claims = try await claimAll(store, spec)
        let afterFirst = try await store.report(claims[0], DeviceOutcome(result: .completed))
        XCTAssertEqual(afterFirst, .active)
        let afterSecond = try await store.report(claims[1], DeviceOutcome(result: .failed))
        XCTAssertEqual(afterSecond, .active)
        let afterLast = try await store.report(claims[2], DeviceOutcome(result: .skipped))
        XCTAssertEqual(afterLast, .completed)
        let state = try await store.status(of: spec.name).summary.state
        XCTAssertEqual(state, .completed)
        try await store.close()
    }

    /// Packages are kept by digest and checked; a spec that is wrong is refused whole.
    public func packagesAndSpecsAreChecked() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 2))
        let bytes = try await store.package(RolloutFixtures.package.sha256, of: spec.name)
        XCTAssertEqual(bytes, RolloutFixtures.package.bytes)
        try await assertRefused(store, .rolloutExists(spec.name), spec)
        var forged = RolloutFixtures.spec(devices: 1)
        forged.packages = [
            RolloutPackage(sha256: String(repeating: "0", count: 64), name: "x.zip", bytes: Data([1]))
        ]
        forged.devices[0].packageSHA256 = forged.packages[0].sha256
        try await assertRefused(
            store,
            .packageDigestMismatch(
                expected: forged.packages[0].sha256, actual: PackageDigest.sha256Hex(of: Data([1]))),
            forged)
        var twice = RolloutFixtures.spec(devices: 1)
        twice.devices.append(twice.devices[0])
        try await assertRefused(
            store, .invalidSpec("device \(twice.devices[0].device) is listed twice"), twice)
        let refusedSpecStored = try await store.rollouts().contains(twice.name)
        XCTAssertFalse(refusedSpecStored)
        var sameBytes = RolloutFixtures.spec(devices: 1)
        let copy = RolloutFixtures.package
        sameBytes.packages.append(RolloutPackage(name: "copy-of-app.zip", bytes: copy.bytes))
        try await assertRefused(
            store,
            .invalidSpec(
                "the packages \(copy.name) and copy-of-app.zip have the same bytes (SHA-256 \(copy.sha256)); "
                    + "a rollout keeps each package once: name one of them for both"),
            sameBytes)
        try await store.close()
    }

    /// The inventory is kept for the gateways, whose rules choose the package of a device that
    /// names none; such a device needs an inventory.
    public func inventoryIsKept() async throws {
        var spec = RolloutFixtures.spec(devices: 2)
        spec.devices[1].packageSHA256 = nil
        let store = try await backend.open()
        try await assertRefused(
            store, .invalidSpec("device \(spec.devices[1].device) has no package and no inventory rules"),
            spec)
        let inventory = RolloutInventory(bytes: Data("device,package\n".utf8), folder: "/srv/rollouts")
        spec.inventory = inventory
        try await store.create(spec)
        let kept = try await store.inventory(of: spec.name)
        XCTAssertEqual(kept, inventory)
        let claims = try await claimAll(store, spec)
        XCTAssertEqual(claims.map(\.packageSHA256), [RolloutFixtures.package.sha256, nil])
        let withoutInventory = try await created(RolloutFixtures.spec(devices: 1))
        let none = try await withoutInventory.0.inventory(of: withoutInventory.1.name)
        XCTAssertNil(none)
        try await withoutInventory.0.close()
        try await store.close()
    }

    /// Everything reported survives closing the store and opening it again.
    public func survivesReopening() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 3, canary: 1, maxFailures: 5))
        let claim = try await claimOne(store, spec, gateway: "gw-a", lease: RolloutFixtures.longLease)
        try await store.report(claim, DeviceOutcome(result: .completed, report: Data("{\"a\":1}".utf8)))
        let before = try await store.status(of: spec.name)
        try await store.close()
        let reopened = try await backend.open()
        let reopenedStatus = try await reopened.status(of: spec.name)
        XCTAssertEqual(reopenedStatus, before)
        let listed = try await reopened.rollouts().contains(spec.name)
        XCTAssertTrue(listed)
        XCTAssertEqual(before.summary.maxFailures, 5)
        XCTAssertEqual(before.devices[0].result, .completed)
        try await reopened.close()
    }

    /// Every device the rollout lets `gw` claim now.
    private func claimAll(_ store: any RolloutStore, _ spec: RolloutSpec) async throws -> [DeviceClaim] {
        try await store.claim(spec.name, for: "gw", among: nil, limit: 100, lease: RolloutFixtures.longLease)
    }

    private func assertRefused(
        _ store: any RolloutStore, _ expected: RolloutStoreError, _ spec: RolloutSpec, line: UInt = #line
    ) async throws {
        do {
            try await store.create(spec)
            XCTFail("created \(spec.name)", line: line)
        } catch let error as RolloutStoreError {
            XCTAssertEqual(error, expected, line: line)
        }
    }
}
