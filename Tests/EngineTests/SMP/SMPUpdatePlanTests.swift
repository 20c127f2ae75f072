import MCUmgr
import TestSupport
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// The version first, for SMP: what the image list decides before anything is written.
final class SMPUpdatePlanTests: XCTestCase {
    private func image(_ version: MCUbootVersion, body: UInt8 = 1) throws -> MCUbootImage {
        var test = TestImage()
        test.version = version
        test.body = [UInt8](repeating: body, count: 512)
        return try MCUbootImage(bytes: test.bytes, name: "app.bin")
    }

    private func slot(
        image: UInt32 = 0, _ slot: UInt32, _ version: String, _ hash: [UInt8], active: Bool,
        confirmed: Bool = true, pending: Bool = false
    ) -> ImageSlotState {
        ImageSlotState(
            image: image, slot: slot, version: version, hash: hash, bootable: true, pending: pending,
            confirmed: confirmed, active: active, permanent: false)
    }

    private let v1 = MCUbootVersion(major: 1, minor: 0, revision: 0)
    private let v2 = MCUbootVersion(major: 2, minor: 0, revision: 0)

    func testTheRunningImageIsUpToDate() throws {
        let new = try image(v2)
        let state = ImageStateResponse(images: [slot(0, "2.0.0", new.hash, active: true)], splitStatus: 0)
        let plan = SMPUpdatePlan(
            package: MCUbootPackage(image: new), state: state, force: false, confirms: true)
        XCTAssertEqual(plan.steps, [.upToDate])
        XCTAssertTrue(plan.isUpToDate)
        XCTAssertEqual(plan.versionCheck.installed, "2.0.0")
        XCTAssertEqual(plan.versionCheck.package, "2.0.0")
    }

    func testAnOlderImageIsUploadedAndANewerDeviceSkippedUnlessForced() throws {
        let old = try image(v1, body: 1)
        let new = try image(v2, body: 2)
        let runningOld = ImageStateResponse(
            images: [slot(0, "1.0.0", old.hash, active: true)], splitStatus: 0)
        let update = SMPUpdatePlan(
            package: MCUbootPackage(image: new), state: runningOld, force: false, confirms: true)
        XCTAssertEqual(update.steps, [.upload])
        XCTAssertEqual(update.versionCheck.decision, .update)

        let runningNew = ImageStateResponse(
            images: [slot(0, "2.0.0", new.hash, active: true)], splitStatus: 0)
        let downgrade = SMPUpdatePlan(
            package: MCUbootPackage(image: old), state: runningNew, force: false, confirms: true)
        XCTAssertEqual(downgrade.steps, [.deviceIsNewer])
        XCTAssertEqual(downgrade.versionCheck.decision, .skip)
        let forced = SMPUpdatePlan(
            package: MCUbootPackage(image: old), state: runningNew, force: true, confirms: true)
        XCTAssertEqual(forced.steps, [.upload])
        XCTAssertEqual(forced.versionCheck.decision, .forced)
    }

    func testAnImageInTheSecondarySlotIsActivatedWithoutUpload() throws {
        let old = try image(v1, body: 1)
        let new = try image(v2, body: 2)
        let state = ImageStateResponse(
            images: [
                slot(0, "1.0.0", old.hash, active: true),
                slot(1, "2.0.0", new.hash, active: false, confirmed: false),
            ],
            splitStatus: 0)
        let plan = SMPUpdatePlan(
            package: MCUbootPackage(image: new), state: state, force: false, confirms: true)
        XCTAssertEqual(plan.steps, [.activate])
        XCTAssertEqual(plan.versionCheck.decision, .activate, "nothing is uploaded")
        XCTAssertEqual(plan.images(.activate, of: MCUbootPackage(image: new)).map(\.image.hash), [new.hash])
    }

    func testAnImageRunningOnTestIsConfirmedOnlyWhenTheUpdateConfirms() throws {
        let new = try image(v2)
        let state = ImageStateResponse(
            images: [slot(0, "2.0.0", new.hash, active: true, confirmed: false)], splitStatus: 0)
        let confirming = SMPUpdatePlan(
            package: MCUbootPackage(image: new), state: state, force: false, confirms: true)
        XCTAssertEqual(confirming.steps, [.confirm])
        XCTAssertEqual(confirming.versionCheck.decision, .confirm, "nothing is uploaded")
        XCTAssertFalse(confirming.isUpToDate)
        let testing = SMPUpdatePlan(
            package: MCUbootPackage(image: new), state: state, force: false, confirms: false)
        XCTAssertEqual(testing.steps, [.upToDate])
    }

    func testEachImageOfAMultiImagePackageIsDecidedOnItsOwn() throws {
        let app = try image(v2, body: 3)
        let net = try image(v1, body: 4)
        let oldNet = try image(MCUbootVersion(major: 0, minor: 9, revision: 0), body: 5)
        let package = MCUbootPackage(
            name: "dfu_application.zip",
            images: [
                .init(imageIndex: 0, core: .application, image: app),
                .init(imageIndex: 1, core: .network, image: net),
            ])
        let state = ImageStateResponse(
            images: [
                slot(image: 0, 0, "2.0.0", app.hash, active: true),
                slot(image: 1, 0, "0.9.0", oldNet.hash, active: true),
            ],
            splitStatus: 0)
        let plan = SMPUpdatePlan(package: package, state: state, force: false, confirms: true)
        XCTAssertEqual(plan.steps, [.upToDate, .upload])
        XCTAssertEqual(plan.versionCheck.decision, .update)
        XCTAssertEqual(plan.images(.upload, of: package).map(\.imageIndex), [1])
    }

    func testSMPDeviceErrorsMapToTheirCases() {
        XCTAssertEqual(DFUError(smpError: .group(.image, rc: 9)), .remoteImageNoFreeSlot)
        XCTAssertEqual(DFUError(smpError: .group(.image, rc: 30)), .remoteImageInvalidImageTooLarge)
        XCTAssertEqual(DFUError(smpError: .mcumgr(rc: 8, reason: nil)), .remoteMcumgrNotSupported)
        XCTAssertEqual(DFUError.remoteMcumgrAccessDenied.rawValue, 1011)
        XCTAssertEqual(DFUError.remoteImageActiveSlotNotKnown.rawValue, 1134)
        XCTAssertEqual(DFUError(smpError: .group(SMPGroup(rawValue: 9), rc: 2)), .unsupportedResponse)
        XCTAssertEqual(DFUError(smpError: .mcumgr(rc: 101, reason: nil)), .unsupportedResponse)
        XCTAssertTrue(DFUError.remoteImageNoFreeSlot.isRemote)
        XCTAssertFalse(DFUError.imageReverted.isRemote)
    }
}
