import DFUSimulator
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// A device whose MCUboot runs in overwrite-only mode copies a marked image in for good and
/// erases the secondary slot; with downgrade prevention it erases an older image instead
/// (nordic-devices-current.md §2.3; docs/mcumgr.md, "MCUboot modes").
final class OverwriteOnlyTests: XCTestCase {
    private static func device(refusesDowngrade: Bool = false) -> SimulatedDeviceConfiguration {
        SMPUpdateTests.device {
            $0.smp.bootloaderMode = .overwriteOnly
            $0.smp.refusesDowngrade = refusesDowngrade
        }
    }

    func testAnImageIsCopiedInForGoodAndTheSecondarySlotErased() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let image = try SMPUpdateTests.image("1.1.0")
        let (result, _) = await SMPUpdateTests.update(image, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        let slots = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address)?.slots)
        XCTAssertEqual(slots.map(\.slot), [0], "the secondary slot is erased after the copy")
        XCTAssertEqual(slots.first?.hash, image.hash)
        XCTAssertEqual(slots.first?.confirmed, true)
        XCTAssertEqual(central.snapshot(of: SMPUpdateTests.address)?.activations, 1)
    }

    func testAnOlderImageRefusedByDowngradePreventionIsNamedAsNotInstalled() async throws {
        let central = try SimulatedCentral(devices: [Self.device(refusesDowngrade: true)])
        var options = DFUOptions()
        options.force = true
        let (result, _) = await SMPUpdateTests.update(
            try SMPUpdateTests.image("0.9.0"), on: central, options: options)
        XCTAssertEqual(result.failure?.error, .imageReverted, "\(result.outcome)")
        let message = result.failure?.message ?? ""
        XCTAssertTrue(message.contains("did not install"), message)
        XCTAssertTrue(message.contains("older than the running one"), message)
        let slots = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address)?.slots)
        XCTAssertEqual(slots.map(\.version), ["1.0.0"], "the old image runs; the refused one is erased")
        XCTAssertEqual(central.snapshot(of: SMPUpdateTests.address)?.activations, 0)
    }
}
