import DFUSimulator
import GATT
import MCUmgr
import XCTest

@testable import NordicDFU

/// Devices whose MCUboot checks SHA-512 image hashes (nRF54L, nRF54H) and list them at 64 bytes
/// (docs/mcumgr.md, "MCUboot images"): the engine tests and confirms by the whole hash, and an
/// image hashed otherwise than the device's images is refused before anything is sent.
final class ImageHashAlgorithmTests: XCTestCase {
    private static func device(hash: MCUbootHashAlgorithm) -> SimulatedDeviceConfiguration {
        SMPUpdateTests.device { $0.smp.imageHash = hash }
    }

    private static func image(_ version: String, hash: MCUbootHashAlgorithm) throws -> MCUbootImage {
        let bytes = SimulatedMCUbootImage.make(
            version: MCUbootVersion(version)!, bodySize: 20_000, seed: 3, hash: hash)
        return try MCUbootImage(bytes: bytes, name: "app_update.bin")
    }

    private func running(_ central: SimulatedCentral) throws -> MCUbootSlotState {
        try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address)?.slots.first { $0.active })
    }

    func testASHA512DeviceIsUpdatedTestedAndConfirmedByTheWholeHash() async throws {
        let central = try SimulatedCentral(devices: [Self.device(hash: .sha512)])
        XCTAssertEqual(try running(central).hash.count, 64, "the factory image is listed by its SHA-512")
        let image = try Self.image("1.1.0", hash: .sha512)
        let (result, _) = await SMPUpdateTests.update(image, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        let slot = try running(central)
        XCTAssertEqual(slot.hash, image.hash)
        XCTAssertEqual(slot.version, "1.1.0")
        XCTAssertTrue(slot.confirmed)

        let (again, _) = await SMPUpdateTests.update(image, on: central)
        XCTAssertEqual(again.outcome, .skipped, "the device runs the image, found by its 64-byte hash")
    }

    func testAnImageHashedOtherwiseThanTheDevicesIsRefusedBeforeSending() async throws {
        for (device, image) in [
            (MCUbootHashAlgorithm.sha512, MCUbootHashAlgorithm.sha256), (.sha256, .sha512),
        ] {
            let central = try SimulatedCentral(devices: [Self.device(hash: device)])
            let (result, _) = await SMPUpdateTests.update(try Self.image("1.1.0", hash: image), on: central)
            XCTAssertEqual(result.failure?.error, .remoteImageInvalidHash, "\(device) device, \(image) image")
            XCTAssertEqual(result.bytesSent, 0, "nothing sent")
            let message = result.failure?.message ?? ""
            XCTAssertTrue(
                message.contains("lists \(device.rawValue) image hashes")
                    && message.contains("carries a \(image.rawValue) hash"), message)
            XCTAssertEqual(try running(central).version, "1.0.0")
        }
    }
}
