import XCTest

/// Legacy DFU through bluetoothd against `dfu-sim` (docs/dfu-sim.md).
final class LegacyUpdateTests: DFUThroughBlueZTestCase {
    /// 4096 bytes: 205 packets of 20 bytes.
    private let application = "Tests/Fixtures/legacy/legacy_app_4096_bin_defaults.zip"

    /// Also an image whose packet count is a multiple of the receipt interval: with a receipt
    /// every 5 packets the last one completes an interval, and an SDK 11 bootloader answers it
    /// with the Receive Firmware Image response only (nRF5 SDK 11 `dfu_transport_ble.c`).
    func testApplicationThroughTheLegacyJumpWithWholeReceiptIntervals() async throws {
        let (simulator, address) = try await simulate("legacy-app")
        let flash = try await flash(application, device: address, ["--prn", "5"])
        XCTAssertEqual(flash.status, 0, "\(flash.events) \(flash.stderr)")
        XCTAssertEqual(flash.resultName, "completed")
        XCTAssertEqual(flash.states.first, "connecting")
        XCTAssertTrue(flash.states.contains("enabling_dfu_mode"), "\(flash.states)")
        XCTAssertEqual(flash.states.last, "completed")
        // An SDK 11 application hands its peer data to the bootloader, which keeps the address.
        try await assertAdvertisedThroughTheBootloaderAtOneAddress(simulator, address)
        let held = try await simulator.stop()
        XCTAssertEqual(held["mode"] as? String, "application")
        XCTAssertEqual(held["activations"] as? Int, 1)
        try await assertHoldsApplication(of: application, held)
    }

    func testSoftDeviceAndBootloaderThenApplication() async throws {
        let package = "Firmware/legacy_sd_bl.zip"
        let (simulator, address) = try await simulate("legacy")
        let first = try await flash(package, device: address)
        XCTAssertEqual(first.status, 0, "\(first.events) \(first.stderr)")
        XCTAssertEqual(first.resultName, "completed")
        // No application yet: the new bootloader comes back where the old one was.
        try await simulator.waitForAdvertising(count: 2)
        XCTAssertEqual(simulator.advertisements.last?["device"] as? String, address)
        let second = try await flash(application, device: address)
        XCTAssertEqual(second.resultName, "completed", "\(second.events) \(second.stderr)")
        let held = try await simulator.stop()
        XCTAssertEqual(held["mode"] as? String, "application")
        XCTAssertEqual(held["activations"] as? Int, 2)
        try await assertHoldsSoftDeviceAndBootloader(of: package, held)
        try await assertHoldsApplication(of: application, held)
    }
}
