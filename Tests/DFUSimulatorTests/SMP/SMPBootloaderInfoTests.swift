import DFUSimulator
import MCUmgr
import XCTest

/// The OS group's bootloader information (Zephyr `os_mgmt_bootloader_info()`), as the simulated
/// device answers it and the client reads it.
final class SMPBootloaderInfoTests: XCTestCase {
    func testNotBuiltInIsNotSupported() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let answer = try await client.send(.bootloaderInfo(query: nil))
        XCTAssertEqual(answer.deviceError, .mcumgr(rc: 8, reason: nil))
        XCTAssertThrowsError(try BootloaderInfo.name(answer))
    }

    func testNameModeAndAnUnknownQuery() async throws {
        let client = try await SMPTestClient(SMPFixtures.device { $0.bootloaderMode = .swapUsingOffset })
        let name = try await client.send(.bootloaderInfo(query: nil))
        XCTAssertEqual(try BootloaderInfo.name(name), "MCUboot")
        let mode = try BootloaderInfo.mode(try await client.send(.bootloaderInfo(query: "mode")))
        XCTAssertEqual(mode.mode, .swapUsingOffset)
        XCTAssertFalse(mode.noDowngrade)
        XCTAssertEqual(mode.mode.description, "swap using offset")

        let v2 = try await client.send(.bootloaderInfo(query: "active_b0_slot"))
        XCTAssertEqual(v2.deviceError, .group(.os, rc: 3), "OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER")
        let v1 = try await client.send(.bootloaderInfo(query: "active_b0_slot"), version: .v1)
        XCTAssertEqual(v1.deviceError, .mcumgr(rc: 5, reason: nil), "translated to MGMT_ERR_ENOENT")
    }

    func testMinusOneIsReadAsUnknown() async throws {
        let client = try await SMPTestClient(SMPFixtures.device { $0.bootloaderMode = .unknown })
        let mode = try BootloaderInfo.mode(try await client.send(.bootloaderInfo(query: "mode")))
        XCTAssertEqual(mode.mode, .unknown)
        XCTAssertFalse(mode.mode.isKnown)
        XCTAssertEqual(MCUbootMode(rawValue: 42).description, "mode 42")
        XCTAssertTrue(MCUbootMode.directXIPWithRevert.isKnown)
    }

    func testTheSimulatedMCUbootClaimsOnlyTheModesItRuns() throws {
        var device = SimulatedDeviceConfiguration(kind: .smpApp)
        device.smp.bootloaderMode = .singleSlotRAMLoad
        XCTAssertThrowsError(try SimulatedCentral(devices: [device])) { error in
            XCTAssertTrue("\(error)".contains("--sim-mcuboot-mode single slot RAM load"), "\(error)")
        }
        device.smp.bootloaderMode = .overwriteOnly
        XCTAssertNoThrow(try SimulatedCentral(devices: [device]))
    }

    func testDowngradePreventionIsTold() async throws {
        let client = try await SMPTestClient(
            SMPFixtures.device {
                $0.bootloaderMode = .overwriteOnly
                $0.refusesDowngrade = true
            })
        let mode = try BootloaderInfo.mode(try await client.send(.bootloaderInfo(query: "mode")))
        XCTAssertEqual(mode.mode, .overwriteOnly)
        XCTAssertTrue(mode.noDowngrade)
    }
}
