import Foundation
import XCTest

/// SMP updates through bluetoothd against `dfu-sim --simulate smp-app` (docs/mcumgr.md): upload,
/// test, reset, check and confirm; resume after a dropped link; a revert; a device up to date; an
/// image the device refuses; a package through a device that reassembles frames; an nRF54L image
/// (SHA-512, pure Ed25519) on a device that tells its MCUboot mode; both cores of an nRF5340; a
/// direct-XIP device with and without revert; an overwrite-only device; a Bare Metal firmware
/// loader; a device with two SMP buffers.
final class SMPUpdateTests: DFUThroughBlueZTestCase {
    private let image = "Firmware/smp_app_1.1.0.bin"
    private let package = "Firmware/dfu_application.zip"

    /// The image hash `inspect` reports for the first image of `file` (what the device reports).
    private func imageHash(_ file: String) async throws -> String {
        let images = try await packageImages(file)
        return try XCTUnwrap(images.first?["hash"] as? String)
    }

    /// The slot that runs, in a `simulator` event.
    private func running(_ event: [String: Any]) -> [String: Any]? {
        (event["slots"] as? [[String: Any]])?.first { $0["active"] as? Bool == true }
    }

    func testUploadTestResetCheckConfirmThenUpToDate() async throws {
        let (simulator, address) = try await simulate("smp-app")
        let run = try await flash(image, device: address)
        XCTAssertEqual(run.status, 0, "\(run.events) \(run.stderr)")
        XCTAssertEqual(run.resultName, "completed")
        XCTAssertEqual(
            run.states, ["connecting", "starting", "uploading", "validating", "disconnecting", "completed"])
        let again = try await flash(image, device: address)
        XCTAssertEqual(again.resultName, "skipped", "\(again.events) \(again.stderr)")
        let held = try await simulator.stop()
        let slot = try XCTUnwrap(running(held), "\(held)")
        let expected = try await imageHash(image)
        XCTAssertEqual(slot["hash"] as? String, expected)
        XCTAssertEqual(slot["confirmed"] as? Bool, true)
        XCTAssertEqual(held["activations"] as? Int, 1)
    }

    func testAnUploadResumesAfterALostLink() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-fault", "disconnect-at=20000"])
        let run = try await flash(image, device: address)
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        XCTAssertEqual(run.result?["retries"] as? Int, 1)
        // the device kept what it had: the upload resumed, and resent less than its window
        let resent = try XCTUnwrap(run.result?["bytes_resent"] as? Int)
        XCTAssertLessThan(resent, 3 * 384, "\(run.result ?? [:])")
        let held = try await simulator.stop()
        let expected = try await imageHash(image)
        XCTAssertEqual(running(held)?["hash"] as? String, expected)
    }

    func testARevertedImageFailsAndTheDeviceRunsItsOldOne() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-fault", "revert-after-test"])
        let run = try await flash(image, device: address)
        XCTAssertEqual(run.status, 1, "\(run.events) \(run.stderr)")
        XCTAssertEqual(run.errorName, "imageReverted")
        let held = try await simulator.stop()
        XCTAssertEqual(running(held)?["version"] as? String, "1.0.0")
    }

    func testAnImageLargerThanTheSlotIsRefusedByTheDevice() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-slot-kib", "16"])
        let run = try await flash(image, device: address)
        XCTAssertEqual(run.status, 1, "\(run.events) \(run.stderr)")
        XCTAssertEqual(run.errorName, "remoteImageInvalidImageTooLarge")
        let held = try await simulator.stop()
        XCTAssertEqual(running(held)?["version"] as? String, "1.0.0")
    }

    /// nRF54L's images through bluetoothd: a pure Ed25519, SHA-512 image, checked with its key
    /// before connecting, on a device whose MCUboot checks SHA-512 and that tells its mode; the
    /// device lists, tests and confirms it by its 64-byte hash.
    func testASHA512ImageOnADeviceThatTellsItsMode() async throws {
        let sha512 = "Tests/MCUmgrTests/Fixtures/ed25519-pure.signed.bin"
        let (simulator, address) = try await simulate(
            "smp-app", ["--sim-image-hash", "sha512", "--sim-mcuboot-mode", "swap-using-offset"])
        let key = SystemTestEnvironment.repositoryFile("Tests/MCUmgrTests/Fixtures/ed25519.pub.pem")
        let run = try await flash(sha512, device: address, ["--verbose", "--public-key", key])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("bootloader MCUboot, swap using offset"), run.stderr)
        let held = try await simulator.stop()
        let expected = try await imageHash(sha512)
        XCTAssertEqual(expected.count, 128, "a SHA-512 hash")
        XCTAssertEqual(running(held)?["hash"] as? String, expected)
        XCTAssertEqual(running(held)?["confirmed"] as? Bool, true)
    }

    /// Both cores of an nRF5340 through bluetoothd: the network core's image marked first and
    /// confirmed, copied over at the reset; a second run finds the package installed.
    func testBothCoresOfAnNRF5340() async throws {
        let package = "Firmware/nrf5340_dfu_application.zip"
        let (simulator, address) = try await simulate(
            "smp-app", ["--sim-mcuboot-mode", "overwrite-only", "--sim-network-core"])
        let run = try await flash(package, device: address)
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        let again = try await flash(package, device: address)
        XCTAssertEqual(again.resultName, "skipped", "\(again.events) \(again.stderr)")
        let held = try await simulator.stop()
        let images = try await packageImages(package)
        XCTAssertEqual(held["network_core_hash"] as? String, images[1]["hash"] as? String, "\(held)")
        XCTAssertEqual(running(held)?["hash"] as? String, images[0]["hash"] as? String)
    }

    /// An nRF5340 with one image pair through bluetoothd: the network core's image through image
    /// 0's slot first (the application unchanged after that reset), then the application in a
    /// second cycle; a second run finds the package installed.
    func testOneImagePairOfAnNRF5340() async throws {
        let package = "Firmware/nrf5340_onepair_dfu_application.zip"
        let (simulator, address) = try await simulate("smp-app", ["--sim-network-core-one-pair"])
        let run = try await flash(package, device: address, ["--verbose"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("one image pair"), run.stderr)
        let again = try await flash(package, device: address)
        XCTAssertEqual(again.resultName, "skipped", "\(again.events) \(again.stderr)")
        let held = try await simulator.stop()
        let images = try await packageImages(package)
        XCTAssertEqual(held["network_core_hash"] as? String, images[1]["hash"] as? String, "\(held)")
        XCTAssertEqual(running(held)?["hash"] as? String, images[0]["hash"] as? String)
    }

    /// A direct-XIP device through bluetoothd, without and with revert: the variant for the slot
    /// it does not run from is sent, and after the reset it runs from that slot (with revert, the
    /// image tested, then confirmed).
    func testADirectXIPDeviceTakesTheVariantForItsOtherSlot() async throws {
        let package = "Firmware/directxip_dfu_application.zip"
        let images = try await packageImages(package)
        for mode in ["direct-xip", "direct-xip-with-revert"] {
            let (simulator, address) = try await simulate("smp-app", ["--sim-mcuboot-mode", mode])
            let run = try await flash(package, device: address)
            XCTAssertEqual(run.resultName, "completed", "\(mode): \(run.events) \(run.stderr)")
            let held = try await simulator.stop()
            XCTAssertEqual(running(held)?["slot"] as? Int, 1, "\(mode): \(held)")
            XCTAssertEqual(running(held)?["hash"] as? String, images[1]["hash"] as? String, mode)
            XCTAssertEqual(running(held)?["confirmed"] as? Bool, true, "\(mode): \(held)")
        }
    }

    /// An overwrite-only device through bluetoothd: MCUboot copies the image into slot 0 for
    /// good at the reset; the update confirms nothing it could revert and checks what runs.
    func testAnOverwriteOnlyDeviceRunsTheImageCopiedIn() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-mcuboot-mode", "overwrite-only"])
        let run = try await flash(image, device: address)
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        let held = try await simulator.stop()
        let expected = try await imageHash(image)
        XCTAssertEqual(running(held)?["slot"] as? Int, 0, "\(held)")
        XCTAssertEqual(running(held)?["hash"] as? String, expected)
    }

    /// nRF Connect SDK Bare Metal through bluetoothd: the application resets into its firmware
    /// loader, found at another address, which takes the image and resets into it.
    func testAFirmwareLoaderTakesTheApplication() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-mcuboot-mode", "firmware-loader"])
        let run = try await flash(image, device: address, ["--verbose"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("resetting into it"), run.stderr)
        let held = try await simulator.stop()
        let expected = try await imageHash(image)
        let slots = held["slots"] as? [[String: Any]] ?? []
        XCTAssertEqual(slots.first { $0["slot"] as? Int == 0 }?["hash"] as? String, expected, "\(held)")
        XCTAssertEqual(held["device"] as? String, address, "back at the application's address")
    }

    func testAPackageThroughADeviceThatReassemblesFrames() async throws {
        let (simulator, address) = try await simulate(
            "smp-app", ["--sim-smp-reassembly", "--sim-smp-buf-size", "2475", "--sim-smp-buf-count", "3"])
        let run = try await flash(package, device: address, ["--verbose"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("frames split over writes"), run.stderr)
        let held = try await simulator.stop()
        let expected = try await imageHash(package)
        XCTAssertEqual(running(held)?["hash"] as? String, expected)
        XCTAssertEqual(running(held)?["confirmed"] as? Bool, true)
    }

    /// A device with two SMP buffers (`CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT=2`) frees them only
    /// in the event after an answer: each request waits, and none is lost to a full pool.
    func testADeviceWithTwoSMPBuffers() async throws {
        let (simulator, address) = try await simulate("smp-app", ["--sim-smp-buf-count", "2"])
        let run = try await flash(image, device: address, ["--verbose"])
        XCTAssertEqual(run.resultName, "completed", "\(run.events) \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("2 SMP buffers: each request waits"), run.stderr)
        XCTAssertEqual(run.result?["retries"] as? Int, 0, "\(run.result ?? [:])")
        let held = try await simulator.stop()
        let expected = try await imageHash(image)
        XCTAssertEqual(running(held)?["hash"] as? String, expected)
    }
}
