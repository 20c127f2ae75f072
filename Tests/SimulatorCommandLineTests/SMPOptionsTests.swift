import DFUFleet
import DFUSimulator
import Foundation
import GATT
import SimulatedFleet
import SimulatorCommandLine
import XCTest

/// The `smp-app` kind's options, on the command line and in a fleet inventory.
final class SMPOptionsTests: XCTestCase {
    let address = BluetoothAddress.simulatedDevice

    func testSMPOptionsReachTheConfiguration() throws {
        let options = try SimulationOptions.parse([
            "--simulate", "smp-app", "--sim-firmware-version", "2.0.1+7", "--sim-slot-kib", "256",
            "--sim-smp-buf-size", "2475", "--sim-smp-buf-count", "6", "--sim-smp-reassembly",
            "--sim-smp-image-check", "--sim-image-hash", "sha512",
            "--sim-mcuboot-mode", "swap-using-move",
            "--sim-page-erase-ms", "10", "--sim-word-write-us", "5", "--sim-fault", "revert-after-test",
        ])
        let configuration = try options.configuration(address: address)
        XCTAssertEqual(configuration.kind, .smpApp)
        XCTAssertEqual(configuration.smp.slotSize, 256 * 1024)
        XCTAssertEqual(configuration.smp.bufferSize, 2475)
        XCTAssertEqual(configuration.smp.bufferCount, 6)
        XCTAssertTrue(configuration.smp.reassembly && configuration.smp.imageCheck)
        XCTAssertEqual(configuration.smp.imageHash, .sha512)
        XCTAssertEqual(configuration.smp.bootloaderMode, .swapUsingMove)
        let loader = try SimulationOptions.parse([
            "--simulate", "smp-app", "--sim-mcuboot-mode", "firmware-loader", "--sim-loader-buffer-kib", "56",
        ])
        XCTAssertEqual(try loader.configuration(address: address).smp.loaderImageBuffer, 56 * 1024)
        XCTAssertEqual(
            try SimulationOptions.parse(["--simulate", "smp-app", "--sim-mcuboot-mode=-1"]).simMcubootMode,
            .unknown)
        XCTAssertEqual(configuration.timing.pageErase, .milliseconds(10))
        XCTAssertEqual(configuration.timing.wordWrite, .microseconds(5))
        XCTAssertEqual(configuration.faults, [.revertAfterTest])
        XCTAssertEqual(SimulatedFault.revertAfterTest.description, "revert-after-test")
    }

    func testDefaultsAreZephyrs() throws {
        let configuration = try SimulationOptions.parse(["--simulate", "smp-app"]).configuration(
            address: address)
        XCTAssertEqual(configuration.smp, SMPDeviceConfiguration())
        XCTAssertEqual(configuration.smp.bufferSize, 384)
        XCTAssertEqual(configuration.smp.bufferCount, 4)
        XCTAssertFalse(configuration.smp.reassembly)
        XCTAssertEqual(configuration.smp.imageHash, .sha256)
    }

    func testSMPOptionsNeedTheSMPKindAndRangedValues() throws {
        XCTAssertThrowsError(
            try SimulationOptions.parse(["--simulate", "secure", "--sim-smp-buf-size", "512"]))
        XCTAssertThrowsError(
            try SimulationOptions.parse(["--simulate", "secure", "--sim-image-hash", "sha512"]))
        XCTAssertThrowsError(
            try SimulationOptions.parse(["--simulate", "smp-app", "--sim-image-hash", "md5"]))
        let cases: [([String], String)] = [
            (["--sim-smp-buf-size", "32"], "--sim-smp-buf-size 32"),
            (["--sim-smp-buf-count", "1"], "--sim-smp-buf-count 1"),
            (["--sim-slot-kib", "2"], "--sim-slot-kib 2"),
            (["--sim-firmware-version", "one"], "--sim-firmware-version one"),
            (["--sim-page-erase-ms", "20000"], "--sim-page-erase-ms 20000"),
            (["--sim-mcuboot-mode", "single-slot-ram-load"], "the simulated MCUboot swaps"),
            (["--sim-network-core", "--sim-network-core-one-pair"], "exclude each other"),
            (["--sim-loader-buffer-kib", "8"], "needs --sim-mcuboot-mode firmware-loader"),
            (["--sim-loader-buffer-kib", "0", "--sim-mcuboot-mode", "firmware-loader"], "outside 1 … 1024"),
            (
                [
                    "--sim-loader-buffer-kib", "1", "--sim-smp-buf-size", "2475", "--sim-mcuboot-mode",
                    "firmware-loader",
                ],
                "holds at least one SMP buffer"
            ),
        ]
        for (arguments, message) in cases {
            let options = try SimulationOptions.parse(["--simulate", "smp-app"] + arguments)
            XCTAssertThrowsError(try options.configuration(address: address), "\(arguments)") { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }

    /// Sizes as imgtool and Zephyr's partitions write them: hex.
    func testSizesTakeHex() throws {
        let configuration = try SimulationOptions.parse([
            "--simulate", "smp-app", "--sim-slot-kib", "0x1D8", "--sim-smp-buf-size", "0x9AB", "--sim-mtu",
            "0xF7",
        ]).configuration(address: address)
        XCTAssertEqual(configuration.smp.slotSize, 472 * 1024)
        XCTAssertEqual(configuration.smp.bufferSize, 2475)
        XCTAssertEqual(configuration.mtu, 247)
        XCTAssertThrowsError(
            try SimulationOptions.parse(["--simulate", "smp-app", "--sim-slot-kib", "0xZZ"]))
    }

    func testFleetEntryTakesTheSMPKeys() throws {
        let json = """
            {"devices": [{"device": "C0:DE:00:00:00:20", "package": "app.zip",
              "simulate": {"kind": "smp-app", "slot_kib": 128, "smp_buf_size": 1024, "smp_buf_count": 3,
                           "smp_reassembly": true, "page_erase_ms": 20, "faults": ["revert-after-test"],
                           "image_hash": "sha512"}}]}
            """
        let inventory = try FleetInventory(json: Data(json.utf8))
        let configuration = try SimulatedDeviceConfiguration(fleetEntry: inventory.devices[0], index: 0)
        XCTAssertEqual(configuration.kind, .smpApp)
        XCTAssertEqual(configuration.smp.slotSize, 128 * 1024)
        XCTAssertEqual(configuration.smp.bufferSize, 1024)
        XCTAssertEqual(configuration.smp.bufferCount, 3)
        XCTAssertTrue(configuration.smp.reassembly)
        XCTAssertEqual(configuration.smp.imageHash, .sha512)
        XCTAssertEqual(configuration.timing.pageErase, .milliseconds(20))
        XCTAssertEqual(configuration.faults, [.revertAfterTest])
    }

    func testFleetEntryTakesTheNetworkCoreSetups() throws {
        let json = """
            {"devices": [{"device": "sim-1", "simulate": {"kind": "smp-app", "network_core_one_pair": true}},
                         {"device": "sim-2", "simulate": {"kind": "smp-app", "network_core": true,
                                                          "network_core_one_pair": true,
                                                          "mcuboot_mode": "overwrite-only"}}]}
            """
        let inventory = try FleetInventory(json: Data(json.utf8))
        let onePair = try SimulatedDeviceConfiguration(fleetEntry: inventory.devices[0], index: 0)
        XCTAssertEqual(onePair.smp.networkCoreOnePair, .erasesImage)
        XCTAssertFalse(onePair.smp.networkCore)
        XCTAssertThrowsError(try SimulatedDeviceConfiguration(fleetEntry: inventory.devices[1], index: 1)) {
            XCTAssertTrue("\($0)".contains("device 'sim-2'"), "\($0)")
            XCTAssertTrue("\($0)".contains("exclude each other"), "\($0)")
        }
    }

    /// A misspelt kind in an inventory is one line naming the kinds (a usage error's message,
    /// one JSON string), not ArgumentParser's list of them one a line.
    func testAFleetEntrysBadKindIsOneLine() throws {
        let json = #"{"devices": [{"device": "sim-1", "simulate": {"kind": "secure-ap"}}]}"#
        let inventory = try FleetInventory(json: Data(json.utf8))
        XCTAssertThrowsError(try SimulatedDeviceConfiguration(fleetEntry: inventory.devices[0], index: 0)) {
            let text = "\($0)"
            XCTAssertFalse(text.contains("\n"), text)
            XCTAssertTrue(text.contains("device 'sim-1'"), text)
            XCTAssertTrue(text.contains("one of the following: secure, secure-app, secure-app-bonded,"), text)
        }
    }
}
