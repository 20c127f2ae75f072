import DFURollout
import RolloutStoreTesting
import XCTest

/// The contract (RolloutStoreContract) against the PostgreSQL store, on the scratch server.
final class PostgresRolloutStoreTests: PostgresTestCase {
    private var contract: RolloutStoreContract { RolloutStoreContract(backend: backend) }
    func testClaimsAreExclusive() async throws { try await contract.claimsAreExclusive() }
    func testListingCountsFiltersAndPages() async throws { try await contract.listingCountsFiltersAndPages() }
    func testExpiredLeaseIsTakenOver() async throws { try await contract.expiredLeaseIsTakenOver() }
    func testRenewalKeepsTheDevice() async throws { try await contract.renewalKeepsTheDevice() }
    func testStaleTokensAreFenced() async throws { try await contract.staleTokensAreFenced() }
    func testResultsAreFinal() async throws { try await contract.resultsAreFinal() }
    func testClaimsOnlyVisibleDevices() async throws { try await contract.claimsOnlyVisibleDevices() }
    func testHeldUntilReportedOrGivenBack() async throws { try await contract.heldUntilReportedOrGivenBack() }
    func testOneRunningGatewayPerName() async throws { try await contract.oneRunningGatewayPerName() }
    func testCanaryGoesFirst() async throws { try await contract.canaryGoesFirst() }
    func testCanaryFailureHalts() async throws { try await contract.canaryFailureHalts() }
    func testMaxFailuresHalts() async throws { try await contract.maxFailuresHalts() }
    func testPauseResumeCancel() async throws { try await contract.pauseResumeCancel() }
    func testLastResultCompletes() async throws { try await contract.lastResultCompletes() }
    func testPackagesAndSpecsAreChecked() async throws { try await contract.packagesAndSpecsAreChecked() }
    func testInventoryIsKept() async throws { try await contract.inventoryIsKept() }
    func testInventoryEntriesAreReadByName() async throws {
        try await contract.inventoryEntriesAreReadByName()
    }
    func testNamesAndEntriesKeepEveryByte() async throws { try await contract.namesAndEntriesKeepEveryByte() }
    func testInventoryEntryFrameIsKeptOnce() async throws {
        try await contract.inventoryEntryFrameIsKeptOnce()
    }
    func testSurvivesReopening() async throws { try await contract.survivesReopening() }
    func testCountsStayExact() async throws { try await contract.countsStayExact() }
    func testSummaryAndNamedDevicesMatchStatus() async throws {
        try await contract.summaryAndNamedDevicesMatchStatus()
    }
}
