import DFUSimulator
import DFUSupport
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Direct-XIP devices run an image from the slot it is linked for: the update sends the variant
/// for the slot the device does not run from; without revert there is no test or confirmation,
/// with revert an unconfirmed image is erased (nordic-devices-current.md §2.3, §7.4, §7.5).
final class DirectXIPTests: XCTestCase {
    private static func device(
        _ mode: MCUbootMode, _ configure: (inout SimulatedDeviceConfiguration) -> Void = { _ in }
    )
        -> SimulatedDeviceConfiguration
    {
        SMPUpdateTests.device {
            $0.smp.bootloaderMode = mode
            configure(&$0)
        }
    }

    /// A package of `version` linked for both slots of image 0, as NCS builds it.
    private static func package(_ version: String, seed: UInt8 = 1, slots: [Int] = [0, 1]) throws
        -> MCUbootPackage
    {
        let configuration = SMPDeviceConfiguration()
        let images = try slots.map { slot in
            let bytes = SimulatedMCUbootImage.make(
                version: MCUbootVersion(version)!, bodySize: 16_000, seed: seed &+ UInt8(slot),
                flags: MCUbootHeader.Flags.romFixed.rawValue, loadAddress: configuration.slotAddress(slot))
            let image = try MCUbootImage(
                bytes: bytes, name: slot == 0 ? "zephyr.signed.bin" : "mcuboot_secondary_app.signed.bin")
            return MCUbootPackage.Image(imageIndex: 0, core: .application, image: image, slot: slot)
        }
        return MCUbootPackage(name: "dfu_application.zip", images: images)
    }

    private static func update(
        _ package: MCUbootPackage, on central: SimulatedCentral, options: DFUOptions = DFUOptions()
    )
        async -> DFUResult
    {
        let updater = SMPUpdater(
            package: package, central: central, device: SMPUpdateTests.address, options: options)
        return await updater.run { _ in }
    }

    private func active(_ central: SimulatedCentral) throws -> MCUbootSlotState {
        try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address)?.slots.first { $0.active })
    }

    func testWithoutRevertTheVariantForTheOtherSlotBootsAtTheReset() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.directXIP)])
        let first = try Self.package("1.1.0")
        let result = await Self.update(first, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(try active(central).slot, 1)
        XCTAssertEqual(try active(central).hash, first.images[1].image.hash)
        XCTAssertTrue(try active(central).confirmed)
        XCTAssertEqual(result.bytesSent, first.images[1].image.bytes.count, "one variant sent")

        let second = try Self.package("1.2.0", seed: 9)
        let again = await Self.update(second, on: central)
        XCTAssertEqual(again.outcome, .completed, "\(again.failure?.message ?? "")")
        XCTAssertEqual(try active(central).slot, 0, "back to slot 0, with the variant linked for it")
        XCTAssertEqual(try active(central).hash, second.images[0].image.hash)
        let skipped = await Self.update(second, on: central)
        XCTAssertEqual(skipped.outcome, .skipped)
    }

    func testAPackageWithoutTheVariantTheDeviceTakesIsRefusedBeforeSending() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.directXIP)])
        let result = await Self.update(try Self.package("1.1.0", slots: [0]), on: central)
        XCTAssertEqual(result.failure?.error, .deviceNotSupported, "\(result.outcome)")
        XCTAssertTrue(
            result.failure?.message.contains("linked for slot 1") == true, result.failure?.message ?? "")
        XCTAssertEqual(result.bytesSent, 0)
    }

    func testAnImageLinkedForTheRunningSlotIsRefusedByTheDeviceWithAdvice() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.directXIP)])
        let slotZero = try Self.package("1.1.0", slots: [0]).images[0]
        let bare = MCUbootPackage(image: slotZero.image)
        let result = await Self.update(bare, on: central)
        XCTAssertEqual(result.failure?.error, .remoteImageInvalidFlashAddress, "\(result.outcome)")
        XCTAssertTrue(
            result.failure?.advice.contains("both slot variants") == true, "\(result.failure?.advice ?? "")")
        XCTAssertEqual(try active(central).version, "1.0.0")
    }

    func testAnOlderImageWouldNeverBootEvenForced() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.directXIP)])
        var options = DFUOptions()
        options.force = true
        let result = await Self.update(try Self.package("0.9.0"), on: central, options: options)
        XCTAssertEqual(result.failure?.error, .deviceNotSupported, "\(result.outcome)")
        XCTAssertTrue(result.failure?.message.contains("never boot") == true, result.failure?.message ?? "")
        XCTAssertEqual(result.bytesSent, 0)
        options.force = false
        options.smp.activation = .testOnly
        let tested = await Self.update(try Self.package("1.1.0"), on: central, options: options)
        XCTAssertTrue(
            tested.failure?.message.contains("cannot run an image on test") == true, "\(tested.outcome)")
    }

    func testWithRevertTheImageIsTestedThenConfirmedOrErasedWhenItFails() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.directXIPWithRevert)])
        let package = try Self.package("1.1.0")
        let result = await Self.update(package, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(try active(central).slot, 1)
        XCTAssertTrue(try active(central).confirmed)

        let failing = try SimulatedCentral(devices: [
            Self.device(.directXIPWithRevert) { $0.faults = [.revertAfterTest] }
        ])
        let reverted = await Self.update(package, on: failing)
        XCTAssertEqual(reverted.failure?.error, .imageReverted, "\(reverted.outcome)")
        let slots = try XCTUnwrap(failing.snapshot(of: SMPUpdateTests.address)?.slots)
        XCTAssertEqual(slots.map(\.slot), [0], "MCUboot erased the image that failed")
        XCTAssertEqual(slots.first?.version, "1.0.0")
    }
}
