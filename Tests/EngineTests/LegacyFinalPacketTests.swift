import NordicDFU
import XCTest

/// The packet that completes a Legacy image, against a scripted SDK ≤ 11 bootloader that
/// answers it with `10 03 01` and no receipt (issue 8).
final class LegacyFinalPacketTests: XCTestCase {
    func testFinalResponseIsAcceptedWhereAReceiptWouldBeDue() async throws {
        let package = try TestPackages.legacyApp()  // 20000 bytes: 1000 packets of 20
        for prn: UInt16 in [10, 8, 7, 1] {
            let update = await ScriptedUpdate.run(
                ScriptedLegacyBootloader(),
                services: ScriptedCentral.legacyServices(version: LegacyDFUVersion(major: 0, minor: 8)),
                package: package, options: EngineHarness.testOptions(prn: prn))
            let label = "PRN \(prn)"
            XCTAssertEqual(update.result.outcome, .completed, "\(label): \(update.logs)")
            XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware, label)
            XCTAssertEqual(update.link.bootloader.receiptsSent, (1000 - 1) / Int(prn), label)
            XCTAssertTrue(update.link.bootloader.resets, "\(label): activated")
        }
    }
}
