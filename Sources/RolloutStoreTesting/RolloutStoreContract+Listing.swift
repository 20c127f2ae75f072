import DFURollout
import Foundation
import XCTest

/// `listing`: a rollout counted and one page of its devices (`rollout serve`).
extension RolloutStoreContract {
    /// Counts by gateway, standing and error class agree with `status`; filters and pages select
    /// the devices `status` would, in inventory order.
    public func listingCountsFiltersAndPages() async throws {
        let (store, spec) = try await created(RolloutFixtures.spec(devices: 250))
        let names = spec.devices.map(\.device)
        let report = Data(#"{"error": {"code": 202, "name": "deviceDisconnected", "message": "x"}}"#.utf8)
        for (gateway, range, outcome) in [
            ("gw-a", 0..<100, DeviceOutcome(result: .completed)),
            ("gw-b", 100..<103, DeviceOutcome(result: .failed, error: "link dropped", report: report)),
            ("gw-b", 103..<104, DeviceOutcome(result: .aborted, error: "stopped")),
        ] {
            let claims = try await store.claim(
                spec.name, for: gateway, among: Set(names[range]), limit: range.count,
                lease: RolloutFixtures.longLease)
            for claim in claims { try await store.report(claim, outcome) }
        }
        _ = try await store.claim(
            spec.name, for: "gw-b", among: Set(names[104..<110]), limit: 6, lease: RolloutFixtures.longLease)

        let all = try await store.listing(of: spec.name, DeviceListingQuery(limit: 0))
        XCTAssertEqual(all.state, .active)
        XCTAssertEqual(all.matching, 250)
        XCTAssertEqual(all.devices, [])
        let counts = Set(
            all.counts.map {
                "\($0.gateway ?? "-") \($0.standing.rawValue) \($0.errorClass ?? "-") \($0.devices)"
            })
        XCTAssertEqual(
            counts,
            [
                "gw-a completed - 100", "gw-b failed deviceDisconnected 3", "gw-b aborted unknown 1",
                "gw-b in_progress - 6", "- pending - 140",
            ])

        let status = try await store.status(of: spec.name)
        let second = try await store.listing(of: spec.name, DeviceListingQuery(offset: 100, limit: 100))
        XCTAssertEqual(second.devices, Array(status.devices[100..<200]))
        let pending = try await store.listing(
            of: spec.name, DeviceListingQuery(standing: .pending, offset: 130, limit: 100))
        XCTAssertEqual(pending.matching, 140)
        XCTAssertEqual(pending.devices.map(\.device), Array(names[240..<250]))
        let failed = try await store.listing(
            of: spec.name, DeviceListingQuery(gateway: "gw-b", errorClass: "deviceDisconnected"))
        XCTAssertEqual(failed.devices.map(\.device), Array(names[100..<103]))
        XCTAssertEqual(failed.devices.first?.error, "link dropped")
        let held = try await store.listing(
            of: spec.name, DeviceListingQuery(standing: .inProgress, gateway: "gw-b"))
        XCTAssertEqual(held.matching, 6)
        XCTAssertTrue(held.devices.allSatisfy(\.held))
        let none = try await store.listing(of: spec.name, DeviceListingQuery(gateway: "gw-z"))
        XCTAssertEqual(none.matching, 0)
        try await store.close()
    }
}
