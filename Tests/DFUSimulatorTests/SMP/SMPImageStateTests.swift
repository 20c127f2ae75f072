import DFUSimulator
import GATT
import MCUmgr
import NordicDFU
import TestSupport
import XCTest

/// The simulated SMP device's image list and state writes, checked against Zephyr's
/// `img_mgmt_state.c` rules and MCUboot's test / confirm / revert.
final class SMPImageStateTests: XCTestCase {
    func testFactoryStateListsOneConfirmedActiveImage() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(factoryVersion: "2.3.4+5"))
        let state = try await client.imageState()
        XCTAssertEqual(state.images.count, 1)
        let running = try XCTUnwrap(state.images.first)
        XCTAssertEqual(running.slot, 0)
        XCTAssertEqual(running.version, "2.3.4.5", "Zephyr shows the build number as a fourth part")
        XCTAssertTrue(running.active && running.confirmed && running.bootable)
        XCTAssertFalse(running.pending || running.permanent)
        XCTAssertEqual(running.hash.count, 32)
        XCTAssertEqual(state.splitStatus, 0)
    }

    func testServiceLayoutAndFirmwareRevision() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(factoryVersion: "1.4.0"))
        let services = try await client.peripheral.services()
        let smp = try XCTUnwrap(services.first { $0.uuid == SMPUUIDs.service }?.characteristics.first)
        XCTAssertEqual(
            smp.properties, [.writeWithoutResponse, .notify], "Zephyr smp_bt.c declares no write request")
        let dis = try XCTUnwrap(
            services.flatMap(\.characteristics).first { $0.uuid == DeviceInformationUUIDs.firmwareRevision })
        let revision = try await dis.read(timeout: SMPTestClient.timeout)
        XCTAssertEqual(String(decoding: revision, as: UTF8.self), "1.4.0")
    }

    func testUploadTestResetConfirm() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let image = SMPFixtures.image("1.1.0")
        let hash = try SMPFixtures.hash(image)
        let last = try await client.upload(image)
        XCTAssertEqual(Int(last.offset), image.count)
        XCTAssertNil(last.match, "no match without CONFIG_IMG_ENABLE_IMAGE_CHECK")
        var state = try await client.imageState()
        XCTAssertEqual(state.images.map(\.slot), [0, 1])
        XCTAssertEqual(state.images[1].hash, hash)
        XCTAssertFalse(state.images[1].pending)

        state = try ImageStateResponse(try await client.send(.imageTest(hash: hash)))
        XCTAssertTrue(state.images[1].pending)
        XCTAssertFalse(state.images[1].permanent)

        let after = try await client.resetAndReconnect()
        state = try await after.imageState()
        XCTAssertEqual(state.images[0].hash, hash, "MCUboot swapped the tested image into slot 0")
        XCTAssertEqual(state.images[0].version, "1.1.0")
        XCTAssertTrue(state.images[0].active)
        XCTAssertFalse(state.images[0].confirmed, "a tested image runs unconfirmed")
        XCTAssertTrue(state.images[1].confirmed, "the previous image waits for a revert")

        state = try ImageStateResponse(try await after.send(.imageConfirm(hash: nil)))
        XCTAssertTrue(state.images[0].confirmed)
        XCTAssertFalse(state.images[1].confirmed)
        let later = try await after.resetAndReconnect()
        state = try await later.imageState()
        XCTAssertEqual(state.images[0].hash, hash, "a confirmed image stays")
        XCTAssertTrue(state.images[0].confirmed)
        let snapshot = try XCTUnwrap(later.central.snapshot(of: SMPTestClient.address))
        XCTAssertEqual(snapshot.slots.map(\.hash), [hash, state.images[1].hash])
        XCTAssertEqual(
            snapshot.images[.application]?.sha256,
            try Fixtures.sha256(image).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(snapshot.firmwareRevision, "1.1.0")
    }

    func testResetWithoutConfirmReverts() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let factory = try await client.imageState().images[0].hash
        let image = SMPFixtures.image("1.1.0")
        try await client.upload(image)
        _ = try await client.send(.imageTest(hash: try SMPFixtures.hash(image)))
        let tested = try await client.resetAndReconnect()
        let testedState = try await tested.imageState()
        XCTAssertEqual(testedState.images[0].hash, try SMPFixtures.hash(image))
        let reverted = try await tested.resetAndReconnect()
        let state = try await reverted.imageState()
        XCTAssertEqual(state.images[0].hash, factory)
        XCTAssertTrue(state.images[0].confirmed)
        XCTAssertEqual(state.images[1].hash, try SMPFixtures.hash(image))
        XCTAssertFalse(state.images[1].pending || state.images[1].confirmed)
    }

    func testRevertAfterTestFaultBringsTheOldImageBackAtOnce() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(faults: [.revertAfterTest]))
        let factory = try await client.imageState().images[0].hash
        let image = SMPFixtures.image("1.1.0")
        try await client.upload(image)
        _ = try await client.send(.imageTest(hash: try SMPFixtures.hash(image)))
        let after = try await client.resetAndReconnect()
        let state = try await after.imageState()
        XCTAssertEqual(state.images[0].hash, factory)
        XCTAssertTrue(state.images[0].active && state.images[0].confirmed)
        XCTAssertFalse(state.images[1].pending)
        let snapshot = try XCTUnwrap(after.central.snapshot(of: SMPTestClient.address))
        XCTAssertEqual(snapshot.firmwareRevision, "1.0.0")
    }

    func testStateWriteErrors() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let running = try await client.imageState().images[0].hash
        let unknown = [UInt8](repeating: 0xAB, count: 32)
        try await client.expectImageError(.imageTest(hash: unknown), .hashNotFound)
        try await client.expectImageError(.imageTest(hash: [1, 2, 3]), .invalidHash)
        try await client.expectImageError(.imageTest(hash: running), .imageSettingTestToActiveDenied)
        // SMP version 1 gets the translated MCUmgr code: HASH_NOT_FOUND is EUNKNOWN.
        let v1 = try await client.send(.imageTest(hash: unknown), version: .v1)
        XCTAssertEqual(v1.deviceError, .mcumgr(rc: MCUmgrReturnCode.unknown.rawValue, reason: nil))
        // Confirming the running, confirmed image changes nothing.
        let state = try ImageStateResponse(try await client.send(.imageConfirm(hash: nil)))
        XCTAssertTrue(state.images[0].confirmed)
    }

    func testTestingAnotherImageWhileOneIsPendingIsRefused() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let image = SMPFixtures.image("1.1.0")
        try await client.upload(image)
        let hash = try SMPFixtures.hash(image)
        _ = try await client.send(.imageTest(hash: hash))
        _ = try await client.send(.imageTest(hash: hash))  // the same slot again: a success
        let running = try await client.imageState().images[0].hash
        try await client.expectImageError(.imageConfirm(hash: running), .imageAlreadyPending)
    }

    func testWhileARevertIsDueSlot1CannotTakeAnUpload() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let image = SMPFixtures.image("1.1.0")
        try await client.upload(image)
        _ = try await client.send(.imageTest(hash: try SMPFixtures.hash(image)))
        let tested = try await client.resetAndReconnect()
        let next = SMPFixtures.image("1.2.0", seed: 3)
        let start = ImageUploadChunk.Start(length: UInt32(next.count), sha256: nil)
        let first = SMPRequest.imageUpload(ImageUploadChunk(first: Array(next[..<64]), start: start))
        try await tested.expectImageError(first, .noFreeSlot)
        let v1 = try await tested.send(first, version: .v1)
        XCTAssertEqual(v1.deviceError, .mcumgr(rc: MCUmgrReturnCode.badState.rawValue, reason: nil))
        try await tested.expectImageError(.imageErase(slot: 1), .noFreeSlot)
        _ = try await tested.send(.imageConfirm(hash: nil))
        let accepted = try ImageUploadResponse(try await tested.send(first))
        XCTAssertEqual(accepted.offset, 64, "confirmed: slot 1 is free again")
    }

    func testAResetCostsTheDelayTheSwapAndTheBoot() async throws {
        let device = SMPFixtures.device()
        let client = try await SMPTestClient(device)
        let image = SMPFixtures.image("1.1.0", bodySize: 40_000)
        try await client.upload(image)
        _ = try await client.send(.imageTest(hash: try SMPFixtures.hash(image)))
        let before = client.central.linkTime.now()
        _ = try await client.resetAndReconnect()
        let swap = device.timing.activationTime(bytes: image.count + 4096 + 72)  // both images move
        let minimum = device.smp.resetDelay + swap + device.timing.bootTime + device.timing.connectionSetup
        XCTAssertGreaterThanOrEqual(client.central.linkTime.now() - before, minimum)
        XCTAssertLessThan(client.central.linkTime.now() - before, minimum + .milliseconds(100))
    }
}
