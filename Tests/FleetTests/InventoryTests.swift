import DFUFleet
import FirmwareUpdate
import Foundation
import GATT
import MCUmgr
import NordicDFU
import XCTest

/// The inventory formats of docs/cli-contract.md ("Fleet inventory") and the rules of docs/fleet.md.
final class InventoryTests: XCTestCase {
    func testJSONWithDefaultsRulesAndSimulatedDevices() throws {
        let json = """
            {"defaults": {"package": "Firmware/app_v3.zip", "adapter": "hci0", "force": false},
             "rules": [{"name": "Thermo-*", "hardware_revision": "pca10056", "version_below": "3.0.0",
                        "package": "thermo.zip"}],
             "devices": [
               {"device": "c0:de:00:00:00:10"},
               {"device": "Thermo-7", "package": "/abs/thermo_v3.zip", "force": true},
               {"device": "sim-1", "simulate": {"kind": "secure-app", "firmware_version": "1.0.0",
                                                "sd_id": 182, "public_key": "key.pem",
                                                "faults": ["disconnect-at=5000"]}}]}
            """
        let folder = try FleetFixtures.temporaryFolder(self)
        let file = folder.appendingPathComponent("fleet.json")
        try Data(json.utf8).write(to: file)
        let inventory = try FleetInventory(contentsOf: file)

        XCTAssertEqual(inventory.defaults.package, folder.appendingPathComponent("Firmware/app_v3.zip").path)
        XCTAssertEqual(inventory.defaults.adapter, "hci0")
        XCTAssertEqual(inventory.devices.map(\.device), ["c0:de:00:00:00:10", "Thermo-7", "sim-1"])
        XCTAssertEqual(inventory.devices[1].package, "/abs/thermo_v3.zip")
        XCTAssertEqual(inventory.devices[1].force, true)
        let simulate = try XCTUnwrap(inventory.devices[2].simulate)
        XCTAssertEqual(simulate.kind, "secure-app")
        XCTAssertEqual(simulate.sdId, "182")
        XCTAssertEqual(simulate.publicKey, folder.appendingPathComponent("key.pem").path)
        XCTAssertEqual(simulate.faults, ["disconnect-at=5000"])
        XCTAssertEqual(inventory.rules.count, 1)
        XCTAssertEqual(inventory.rules[0].versionBelow, DFUFirmwareVersion("3.0.0"))
        XCTAssertEqual(inventory.rules[0].package, folder.appendingPathComponent("thermo.zip").path)
    }

    func testCSVWithQuotedFieldsAndOptionalColumns() throws {
        let csv =
            "device,package,force\r\nC0:DE:00:00:00:10,,\n\"Thermo, kitchen\",\"a \"\"b\"\".zip\",true\n\n"
        let inventory = try FleetInventory(csv: csv)
        XCTAssertEqual(inventory.devices.map(\.device), ["C0:DE:00:00:00:10", "Thermo, kitchen"])
        XCTAssertNil(inventory.devices[0].package)
        XCTAssertNil(inventory.devices[0].force)
        XCTAssertEqual(inventory.devices[1].package, "a \"b\".zip")
        XCTAssertEqual(inventory.devices[1].force, true)
    }

    func testMistakesAreNamed() {
        func message(_ body: () throws -> FleetInventory) -> String {
            do {
                _ = try body()
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(
            message { try FleetInventory(csv: "device,colour\nA,red\n") }.contains(
                "unknown CSV column 'colour'"))
        XCTAssertTrue(message { try FleetInventory(csv: "device\nA\nA\n") }.contains("'A' appears twice"))
        XCTAssertTrue(
            message { try FleetInventory(csv: "device,force\nA,maybe\n") }.contains("row 2: force 'maybe'"))
        // a short row is not read as empty fields: its package would quietly be the default
        XCTAssertTrue(
            message { try FleetInventory(csv: "device,package,force\nA,a.zip,true\nB,b.zip\n") }.contains(
                "CSV row 3 has 2 fields, the header 3 (a comma or a field missing?)"))
        XCTAssertTrue(
            message { try FleetInventory(json: Data(#"{"devices": [{"package": "x"}]}"#.utf8)) }
                .contains("device 1: device missing"))
        XCTAssertTrue(
            message {
                try FleetInventory(
                    json: Data(
                        #"{"devices": [{"device": "A"}], "rules": [{"version_below": "x", "package": "p"}]}"#
                            .utf8))
            }.contains("rule 1: version_below 'x'"))
        XCTAssertTrue(
            message { try FleetInventory(json: Data(#"{"devices": []}"#.utf8)) }.contains("no devices"))
    }

    func testPackageChoiceOrder() throws {
        let inventory = try FleetInventory(
            defaults: .init(package: "default.zip"),
            devices: [
                FleetDeviceEntry(device: "own", package: "own.zip"), FleetDeviceEntry(device: "other"),
            ],
            rules: [
                FleetRule(hardwareRevision: "pca10040", package: "nrf52832.zip"),
                FleetRule(name: "Th?rmo-*", versionBelow: DFUFirmwareVersion("2.0.0"), package: "thermo.zip"),
            ])
        let thermo = FleetDeviceInfo(
            address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x10), name: "Thermo-12", firmwareRevision: "1.9.9"
        )
        XCTAssertEqual(
            inventory.packageChoice(for: inventory.devices[0], info: thermo)?.reason, "device entry")
        XCTAssertEqual(
            inventory.packageChoice(for: inventory.devices[1], info: thermo)?.package, "thermo.zip")
        var newer = thermo
        newer.firmwareRevision = "2.0.0"
        XCTAssertEqual(inventory.packageChoice(for: inventory.devices[1], info: newer)?.reason, "defaults")
        var unknown = thermo
        unknown.firmwareRevision = nil
        XCTAssertEqual(
            inventory.packageChoice(for: inventory.devices[1], info: unknown)?.package, "default.zip")
        var board = newer
        board.hardwareRevision = "pca10040"
        XCTAssertEqual(
            inventory.packageChoice(for: inventory.devices[1], info: board)?.reason,
            "rule 1 (hardware revision pca10040)")
        XCTAssertFalse(
            FleetRule(name: "Thermo-*", package: "p").matches(
                FleetDeviceInfo(address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x10), name: "Thermo")))
        XCTAssertTrue(
            FleetRule(name: "*-*-*", package: "p").matches(
                FleetDeviceInfo(address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x10), name: "a-b-c-d")))
    }

    /// A rule on the MCUboot mode a device tells picks the package built for it.
    func testARuleOnTheMCUbootMode() throws {
        let inventory = try FleetInventory(
            json: Data(
                #"""
                {"defaults": {"package": "swap.zip"}, "devices": [{"device": "A"}],
                 "rules": [{"mcuboot_mode": "direct-xip", "package": "directxip.zip"}]}
                """#.utf8))
        XCTAssertEqual(inventory.rules.first?.mcubootMode, .directXIP)
        var device = FleetDeviceInfo(address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x10))
        XCTAssertEqual(inventory.packageChoice(for: inventory.devices[0], info: device)?.package, "swap.zip")
        device.bootloader = SMPBootloader(name: "MCUboot", mode: .directXIP)
        let choice = inventory.packageChoice(for: inventory.devices[0], info: device)
        XCTAssertEqual(choice?.package, "directxip.zip")
        XCTAssertEqual(choice?.reason, "rule 1 (MCUboot mode direct-xip)")
        device.bootloader = SMPBootloader(name: "MCUboot", mode: .directXIPWithRevert)
        XCTAssertEqual(inventory.packageChoice(for: inventory.devices[0], info: device)?.package, "swap.zip")
        XCTAssertThrowsError(
            try FleetInventory(
                json: Data(
                    #"{"devices": [{"device": "A"}], "rules": [{"mcuboot_mode": "xip", "package": "p"}]}"#
                        .utf8))
        ) { XCTAssertTrue("\($0)".contains("rule 1: mcuboot_mode 'xip'"), "\($0)") }
    }

    /// A rule on whether the image list numbers its entries tells an nRF5340 built for
    /// simultaneous updates from one with one image pair.
    func testARuleOnNumberedImages() throws {
        let inventory = try FleetInventory(
            json: Data(
                #"""
                {"defaults": {"package": "onepair.zip"}, "devices": [{"device": "A"}],
                 "rules": [{"numbered_images": true, "package": "simultaneous.zip"}]}
                """#.utf8))
        XCTAssertEqual(inventory.rules.first?.numberedImages, true)
        var device = FleetDeviceInfo(address: BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x10))
        XCTAssertEqual(
            inventory.packageChoice(for: inventory.devices[0], info: device)?.package, "onepair.zip")
        device.imageLayout = SMPImageLayout(images: 1, numbered: false)
        XCTAssertEqual(
            inventory.packageChoice(for: inventory.devices[0], info: device)?.package, "onepair.zip")
        device.imageLayout = SMPImageLayout(images: 1, numbered: true)
        let choice = inventory.packageChoice(for: inventory.devices[0], info: device)
        XCTAssertEqual(choice?.package, "simultaneous.zip")
        XCTAssertEqual(choice?.reason, "rule 1 (numbered images)")
        XCTAssertThrowsError(
            try FleetInventory(
                json: Data(
                    #"{"devices": [{"device": "A"}], "rules": [{"numbered_images": 2, "package": "p"}]}"#.utf8
                ))
        ) { XCTAssertTrue("\($0)".contains("numbered_images"), "\($0)") }
    }
}
