import DFURollout
import Foundation
import XCTest

/// A store's refusal reads as words wherever it is shown (a gateway's `rollout_unusable` reason,
/// logs), never as a Swift dump of its case.
final class RolloutStoreErrorTextTests: XCTestCase {
    func testEveryRefusalReadsAsWords() {
        let errors: [RolloutStoreError] = [
            .rolloutExists("spring"), .noSuchRollout("spring"), .noSuchPackage("ab12"),
            .invalidSpec("device x is named twice"), .leaseLost(device: "C0:DE:00:00:00:10"),
            .invalidTransition(from: .cancelled, command: .resume),
            .packageDigestMismatch(expected: "ab12", actual: "cd34"),
            .gatewayNameInUse("hall-a", lastSeen: Date(timeIntervalSince1970: 0)),
            .storage(StoreFailure(.permission, "PostgreSQL 42501: permission denied for table gateways")),
        ]
        for error in errors {
            let text = "\(error)"
            XCTAssertFalse(text.contains("RolloutStoreError") || text.contains("StoreFailure"), text)
            XCTAssertNil(
                text.range(of: #"^[a-zA-Z]+\("#, options: .regularExpression), "a case dump: \(text)")
        }
        XCTAssertEqual(
            "\(RolloutStoreError.noSuchPackage("ab12"))", "the rollout has no package ab12")
        XCTAssertEqual(
            "\(RolloutStoreError.storage(StoreFailure(.permission, "PostgreSQL 42501: denied")))",
            "the rollout store failed: PostgreSQL 42501: denied")
    }
}
