import DFUSimulator
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// RAM load (mode 6): MCUboot copies the valid image of the higher version into RAM, from
/// either slot, whatever the trailers say (nordic-devices-current.md §2.3): one image, uploaded
/// into the slot the device does not run from, booted by a reset, with no test or confirmation.
final class RAMLoadTests: XCTestCase {
    private static func device() -> SimulatedDeviceConfiguration {
        SMPUpdateTests.device { $0.smp.bootloaderMode = .ramLoad }
    }

    /// An image linked for RAM (imgtool `--load-addr`: the `RAM_LOAD` flag).
    private static func image(_ version: String, seed: UInt8) throws -> MCUbootImage {
        let bytes = SimulatedMCUbootImage.make(
            version: MCUbootVersion(version)!, bodySize: 16_000, seed: seed,
            flags: MCUbootHeader.Flags.ramLoad.rawValue, loadAddress: 0x2000_8000)
        return try MCUbootImage(bytes: bytes, name: "zephyr.signed.bin")
    }

    private static func update(
        _ image: MCUbootImage, on central: SimulatedCentral,
        _ activation: DFUOptions.SMP.Activation = .testAndConfirm
    ) async -> DFUResult {
        var options = DFUOptions()
        options.smp.activation = activation
        let updater = SMPUpdater(
            package: MCUbootPackage(image: image), central: central, device: SMPUpdateTests.address,
            options: options)
        return await updater.run { _ in }
    }

    private func active(_ central: SimulatedCentral) throws -> MCUbootSlotState {
        try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address)?.slots.first { $0.active })
    }

    func testTheNewerImageBootsFromEitherSlotInTurn() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let first = try Self.image("1.1.0", seed: 2)
        var result = await Self.update(first, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(try active(central).slot, 1)
        XCTAssertEqual(try active(central).hash, first.hash)

        let second = try Self.image("1.2.0", seed: 3)
        result = await Self.update(second, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(try active(central).slot, 0, "the same image goes into the other slot")
        XCTAssertEqual(try active(central).hash, second.hash)
    }

    func testAnImageNotNewerIsRefused() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let result = await Self.update(try Self.image("1.0.0", seed: 4), on: central)
        XCTAssertEqual(result.failure?.error, .deviceNotSupported, "\(result.outcome)")
        XCTAssertTrue(
            result.failure?.message.contains("RAM load mode") == true, result.failure?.message ?? "")
        XCTAssertEqual(result.bytesSent, 0)
    }

    func testTestOnlyIsRefusedNamingTheMode() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let result = await Self.update(try Self.image("1.1.0", seed: 2), on: central, .testOnly)
        XCTAssertEqual(result.failure?.error, .deviceNotSupported, "\(result.outcome)")
        XCTAssertTrue(
            result.failure?.message.contains("RAM load mode") == true, result.failure?.message ?? "")
        XCTAssertEqual(result.bytesSent, 0)
    }
}
