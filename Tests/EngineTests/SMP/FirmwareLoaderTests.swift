import DFUSimulator
import DFUSupport
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// nRF Connect SDK Bare Metal: the application resets into MCUboot's firmware loader, which
/// advertises at the address with its lowest bit flipped, writes slot 0 in place and resets into
/// the new application (nordic-devices-current.md §5, §7.7).
final class FirmwareLoaderTests: XCTestCase {
    private static func device(_ configure: (inout SimulatedDeviceConfiguration) -> Void = { _ in })
        -> SimulatedDeviceConfiguration
    {
        SMPUpdateTests.device {
            $0.smp.bootloaderMode = .firmwareLoader
            configure(&$0)
        }
    }

    private static func update(
        _ image: MCUbootImage, on central: SimulatedCentral, options: DFUOptions = DFUOptions()
    )
        async -> (DFUResult, [DFUState])
    {
        let states = Locked<[DFUState]>([])
        let updater = SMPUpdater(
            package: MCUbootPackage(image: image), central: central, device: SMPUpdateTests.address,
            options: options)
        let result = await updater.run { event in
            if case .state(let state) = event { states.withLock { $0.append(state) } }
        }
        return (result, states.withLock { $0 })
    }

    func testTheLoaderWritesTheApplicationAndResetsIntoIt() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        let image = try SMPUpdateTests.image("1.1.0")
        let (result, states) = await Self.update(image, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(states, [.connecting, .starting, .uploading, .validating, .disconnecting, .completed])
        let snapshot = try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address))
        XCTAssertEqual(
            snapshot.address, SMPUpdateTests.address.description, "back at the application's address")
        XCTAssertEqual(snapshot.firmwareRevision, "1.1.0")
        XCTAssertEqual(snapshot.slots.first { $0.slot == 0 }?.hash, image.hash)

        let (again, _) = await Self.update(image, on: central)
        XCTAssertEqual(again.outcome, .skipped, "\(again.failure?.message ?? "")")
        XCTAssertEqual(again.bytesSent, 0)
        XCTAssertEqual(
            central.snapshot(of: SMPUpdateTests.address)?.address, SMPUpdateTests.address.description)
    }

    /// sdk-nrf-bm's loader answers a chunk its full image buffer cannot take with success and
    /// the offset unchanged: the chunk goes again, and the upload is neither failed nor retried.
    func testABusyLoaderIsSentTheChunkAgain() async throws {
        let central = try SimulatedCentral(devices: [
            Self.device { device in
                device.mtu = 498
                device.smp.bufferSize = 2475
                device.smp.reassembly = true
                device.smp.loaderImageBuffer = 8 * 1024
                device.timing.wordWrite = .microseconds(200)  // slower than the link
            }
        ])
        let image = try SMPUpdateTests.image("1.1.0", size: 60_000)
        let (result, events) = await SMPUpdateTests.update(image, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(result.retries, 0)
        XCTAssertEqual(central.snapshot(of: SMPUpdateTests.address)?.firmwareRevision, "1.1.0")
        let busy = events.filter {
            if case .log(_, let line) = $0 { line.contains("storage is busy") } else { false }
        }
        XCTAssertFalse(busy.isEmpty, "the loader's buffer never filled")
        XCTAssertGreaterThan(result.bytesResent, 0)
    }

    func testALinkLostInTheLoaderIsResumedThere() async throws {
        let central = try SimulatedCentral(devices: [
            Self.device { $0.faults = [.disconnectAt(bytes: 10_000)] }
        ])
        let image = try SMPUpdateTests.image("1.1.0")
        let (result, _) = await Self.update(image, on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(result.retries, 1)
        XCTAssertLessThan(result.bytesResent, 3 * 384)
        XCTAssertEqual(central.snapshot(of: SMPUpdateTests.address)?.firmwareRevision, "1.1.0")
    }

    func testWhatTheLoaderCannotDoIsRefusedBeforeSending() async throws {
        let central = try SimulatedCentral(devices: [Self.device()])
        var options = DFUOptions()
        options.smp.activation = .testOnly
        let (tested, _) = await Self.update(try SMPUpdateTests.image("1.1.0"), on: central, options: options)
        XCTAssertEqual(tested.failure?.error, .deviceNotSupported, "\(tested.outcome)")
        XCTAssertTrue(
            tested.failure?.message.contains("firmware loader") == true, tested.failure?.message ?? "")
        XCTAssertEqual(tested.bytesSent, 0)
        let twoImages = MCUbootPackage(
            name: "dfu_application.zip",
            images: [
                .init(imageIndex: 0, core: .application, image: try SMPUpdateTests.image("1.1.0")),
                .init(imageIndex: 1, core: .network, image: try SMPUpdateTests.image("1.1.0", seed: 5)),
            ])
        let updater = SMPUpdater(
            package: twoImages, central: central, device: SMPUpdateTests.address, options: DFUOptions())
        let refused = await updater.run { _ in }
        XCTAssertTrue(
            refused.failure?.message.contains("one application image") == true, "\(refused.outcome)")
        XCTAssertEqual(central.snapshot(of: SMPUpdateTests.address)?.firmwareRevision, "1.0.0")
    }
}
