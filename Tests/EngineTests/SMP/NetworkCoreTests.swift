import DFUSimulator
import DFUSupport
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// An nRF5340 updated on both cores at once: image 1 is the network core, which MCUboot copies
/// over at the reset only when it was marked first, and never lists (nordic-devices-current.md
/// §3; docs/mcumgr.md, "Both cores of an nRF5340").
final class NetworkCoreTests: XCTestCase {
    private static func device() -> SimulatedDeviceConfiguration {
        SMPUpdateTests.device {
            $0.smp.bootloaderMode = .overwriteOnly
            $0.smp.networkCore = true
        }
    }

    private static func package() throws -> MCUbootPackage {
        let application = try SMPUpdateTests.image("1.1.0", seed: 2)
        let network = try SMPUpdateTests.image("2.0.0", size: 12_000, seed: 3)
        return MCUbootPackage(
            name: "dfu_application.zip",
            images: [
                .init(imageIndex: 0, core: .application, image: application),
                .init(imageIndex: 1, core: .network, image: network),
            ])
    }

    private static func update(
        _ package: MCUbootPackage, on central: SimulatedCentral, options: DFUOptions = DFUOptions()
    )
        async -> (DFUResult, [String])
    {
        let messages = Locked<[String]>([])
        let updater = SMPUpdater(
            package: package, central: central, device: SMPUpdateTests.address, options: options)
        let result = await updater.run { event in
            if case .log(_, let message) = event { messages.withLock { $0.append(message) } }
        }
        return (result, messages.withLock { $0 })
    }

    func testBothCoresAreUpdatedNetworkCoreMarkedFirstAndThenFoundUpToDate() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let package = try Self.package()
        let (result, log) = await Self.update(package, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        let snapshot = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address))
        XCTAssertEqual(
            snapshot.networkCoreHash, package.images[1].image.hash, "the network core runs the new image")
        XCTAssertEqual(snapshot.slots.map(\.image), [0], "nothing left waiting in a secondary slot")
        XCTAssertEqual(snapshot.slots.first?.hash, package.images[0].image.hash)
        XCTAssertEqual(snapshot.activations, 2)
        XCTAssertTrue(log.contains { $0.contains("network core's first") }, "\(log)")

        let (again, _) = await Self.update(package, on: central)
        XCTAssertEqual(again.outcome, .skipped, "the network core counts as installed with its application")
        XCTAssertEqual(again.bytesSent, 0)
    }

    func testANewApplicationAloneStillSendsTheNetworkCoresImage() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let package = try Self.package()
        let (result, _) = await Self.update(package, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        let newer = MCUbootPackage(
            name: package.name,
            images: [
                .init(imageIndex: 0, core: .application, image: try SMPUpdateTests.image("1.2.0", seed: 4)),
                package.images[1],
            ])
        let (second, _) = await Self.update(newer, on: central)
        XCTAssertEqual(second.outcome, .completed, "\(second.failure?.message ?? "")")
        XCTAssertEqual(
            second.bytesSent, newer.images.map(\.image.bytes.count).reduce(0, +), "both images sent")
    }

    func testTestOnlyIsRefusedBeforeAnythingIsSent() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        var options = DFUOptions()
        options.smp.activation = .testOnly
        let (result, _) = await Self.update(try Self.package(), on: central, options: options)
        XCTAssertEqual(result.failure?.error, .deviceNotSupported, "\(result.outcome)")
        XCTAssertTrue(result.failure?.message.contains("network core") == true, result.failure?.message ?? "")
        XCTAssertEqual(result.bytesSent, 0)
    }
}
