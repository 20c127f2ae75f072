import DFUSimulator
import DFUSupport
import GATT
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// An nRF5340 with one image pair (nordic-devices-current.md §3.1, §3.2, §7.6; docs/mcumgr.md,
/// "One image pair"): the network core's image goes through image 0's secondary slot in a cycle
/// of its own, confirmed, and succeeds with the application unchanged; the application follows.
final class OnePairTests: XCTestCase {
    private static func device(_ onePair: OnePairNetworkCore = .erasesImage) -> SimulatedDeviceConfiguration {
        SMPUpdateTests.device { $0.smp.networkCoreOnePair = onePair }
    }

    private static func networkImage() throws -> MCUbootImage {
        let bytes = SimulatedMCUbootImage.make(
            version: MCUbootVersion(major: 2, minor: 0, revision: 0), bodySize: 12_000, seed: 3,
            resetVector: OnePairNetworkCore.flash.lowerBound + 0x2C1)
        return try MCUbootImage(bytes: bytes, name: "ipc_radio.signed.bin")
    }

    private static func package(application: Bool = true) throws -> MCUbootPackage {
        var images: [MCUbootPackage.Image] = []
        if application {
            images.append(
                .init(imageIndex: 0, core: .application, image: try SMPUpdateTests.image("1.1.0", seed: 2)))
        }
        images.append(.init(imageIndex: 1, core: .network, image: try networkImage()))
        return MCUbootPackage(name: "dfu_application.zip", images: images)
    }

    private static func update(_ package: MCUbootPackage, on central: any GATTCentral) async -> (
        DFUResult, [String]
    ) {
        let (result, messages, _) = await updateCountingParts(package, on: central)
        return (result, messages)
    }

    /// Also returns each `part/total` the progress named, once each.
    private static func updateCountingParts(
        _ package: MCUbootPackage, on central: any GATTCentral
    ) async -> (DFUResult, [String], [String]) {
        let parts = Locked<[String]>([])
        let messages = Locked<[String]>([])
        let updater = SMPUpdater(
            package: package, central: central, device: SMPUpdateTests.address, options: DFUOptions())
        let result = await updater.run { event in
            if case .log(_, let message) = event { messages.withLock { $0.append(message) } }
            if case .progress(let progress) = event {
                parts.withLock {
                    let part = "\(progress.part)/\(progress.totalParts)"
                    if $0.last != part { $0.append(part) }
                }
            }
        }
        return (result, messages.withLock { $0 }, parts.withLock { $0 })
    }

    func testNetworkCoreThenApplicationInTwoCyclesThenUpToDate() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let package = try Self.package()
        let (result, log, parts) = await Self.updateCountingParts(package, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(parts, ["1/2", "2/2"], "the network core's upload first, both counted")
        let snapshot = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address))
        XCTAssertEqual(snapshot.networkCoreHash, package.images[1].image.hash, "the network core runs it")
        XCTAssertEqual(snapshot.slots.first?.hash, package.images[0].image.hash, "then the application")
        XCTAssertTrue(snapshot.slots.first?.confirmed == true)
        XCTAssertEqual(snapshot.activations, 2)
        XCTAssertEqual(result.partsActivated, 2)
        XCTAssertTrue(log.contains { $0.contains("one image pair") }, "\(log)")

        let (again, _) = await Self.update(package, on: central)
        XCTAssertEqual(again.outcome, .skipped, "\(again.failure?.message ?? "")")
        XCTAssertEqual(again.bytesSent, 0)
    }

    func testAPackageOfTheNetworkCoreAlone() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let before = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address)).slots.first?.hash
        let package = try Self.package(application: false)
        let (result, _) = await Self.update(package, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        let snapshot = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address))
        XCTAssertEqual(snapshot.networkCoreHash, package.images[0].image.hash)
        XCTAssertEqual(
            snapshot.slots.map(\.hash), [try XCTUnwrap(before)], "the application unchanged, slot 1 erased")
    }

    func testALinkLostWhileCheckingTheNetworkCoreConnectsAgain() async throws {
        let simulated = try SimulatedCentral(devices: [Self.device()])
        let package = try Self.package()
        let (result, _) = await Self.update(
            package, on: SMPLinkFault.dropAtStateRead.central(simulated, onConnection: 2))
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(result.retries, 1)
        let snapshot = try XCTUnwrap(simulated.snapshot(of: SMPUpdateTests.address))
        XCTAssertEqual(snapshot.networkCoreHash, package.images[1].image.hash)
        XCTAssertEqual(snapshot.slots.first?.hash, package.images[0].image.hash)
    }

    func testAnOlderReleaseLeavingTheImageUnmarkedSucceeds() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.keepsImage)])
        let (result, log) = await Self.update(try Self.package(application: false), on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertTrue(log.contains { $0.contains("stays unmarked in slot 1") }, "\(log)")
    }

    func testAnImageLeftMarkedIsReportedAsNotCopied() async throws {
        let central = try SimulatedCentral(devices: [Self.device(.skipsCopy)])
        let (result, _) = await Self.update(try Self.package(), on: central)
        XCTAssertEqual(result.failure?.error, .imageReverted, "\(result.outcome)")
        let message = result.failure?.message ?? ""
        XCTAssertTrue(message.contains("did not copy it to the network core"), message)
        XCTAssertTrue(message.contains("application unchanged"), message)
        let snapshot = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address))
        XCTAssertEqual(snapshot.firmwareRevision, "1.0.0", "the second cycle never started")
    }
}
