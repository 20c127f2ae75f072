import DFUSimulator
import DFUSupport
import GATT
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// One simulated device and the engine pointed at it.
struct EngineHarness {
    let central: SimulatedCentral
    let configuration: SimulatedDeviceConfiguration
    /// Where the user finds the device: the application's address, or the bootloader's when the
    /// device starts in its bootloader.
    var device: DeviceIdentifier { .address(configuration.address) }

    /// A device of `kind` that accepts `package` (the SoftDevice its init packets require, an
    /// older application), then changed by `configure`.
    init(
        _ kind: SimulatedDeviceKind, accepting package: DFUPackage, faults: [SimulatedFault] = [],
        configure: (inout SimulatedDeviceConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = SimulatedDeviceConfiguration(kind: kind)
        configuration.faults = faults
        configuration.firmwareVersion = "0.0.0"
        switch package.images.first?.decodedInitPacket {
        case .secure(let initPacket):
            if let required = initPacket.sdReq.first(where: { $0 != 0 && $0 != 0xFFFE }) {
                configuration.softDeviceID = UInt16(required)
            }
        case .legacy(let initPacket):
            if let required = initPacket.softdeviceRequired.first(where: { $0 != 0xFFFE }) {
                configuration.softDeviceID = required
            }
        case nil:
            break
        }
        configure(&configuration)
        self.configuration = configuration
        central = try SimulatedCentral(devices: [configuration])
    }

    /// Options with waits short enough for tests (the simulator answers at once in real time).
    static func testOptions(prn: UInt16? = nil) -> DFUOptions {
        var options = DFUOptions()
        options.nordic.packetReceiptNotifications = prn
        options.notificationTimeout = .seconds(2)
        options.responseTimeout = .seconds(4)
        options.connectTimeout = .seconds(2)
        options.bootloaderScanTimeout = .seconds(4)
        return options
    }

    /// Runs an update to its end, through `central` (one in front of the simulated one) or the
    /// simulated central itself; returns the result and every event.
    func update(
        _ package: DFUPackage, options: DFUOptions = testOptions(), through central: (any GATTCentral)? = nil
    ) async -> (DFUResult, [DFUEvent]) {
        let events = Locked<[DFUEvent]>([])
        let updater = DFUUpdater(
            package: package, central: central ?? self.central, device: device, options: options)
        let result = await updater.run { event in events.withLock { $0.append(event) } }
        return (result, events.withLock { $0 })
    }

    var snapshot: DeviceSnapshot? { central.snapshot(of: device) }

    /// The device runs `package`'s application (or, without one, holds its system image and
    /// booted) — never a partial image.
    func assertRuns(_ package: DFUPackage, file: StaticString = #filePath, line: UInt = #line) {
        guard let snapshot else { return XCTFail("no simulated device", file: file, line: line) }
        for image in package.images {
            let installed: [InstalledImageType] =
                switch image.kind {
                case .application: [.application]
                case .softdevice: [.softdevice]
                case .bootloader: [.bootloader]
                case .softdeviceBootloader: [.softdevice, .bootloader]
                }
            for type in installed {
                XCTAssertNotNil(snapshot.images[type], "\(type) missing", file: file, line: line)
            }
            if image.kind == .application {
                XCTAssertEqual(
                    snapshot.images[.application]?.sha256, image.sha256.hexString(), file: file, line: line)
                XCTAssertEqual(snapshot.mode, .application, file: file, line: line)
            }
        }
    }

    /// After a failure or an abort: the device either runs the new image or waits able to take
    /// the update again — proven by a clean update that completes.
    func assertCanTakeUpdate(_ package: DFUPackage, file: StaticString = #filePath, line: UInt = #line) async
    {
        guard let snapshot else { return XCTFail("no simulated device", file: file, line: line) }
        if snapshot.mode == .application,
            snapshot.images[.application]?.sha256 == package.images.last?.sha256.hexString()
        {
            return
        }
        var options = Self.testOptions()
        options.force = true
        let (result, events) = await update(package, options: options)
        XCTAssertEqual(
            result.outcome, .completed, "retry after the failure: \(Self.logs(events))", file: file,
            line: line)
        assertRuns(package, file: file, line: line)
    }

    static func logs(_ events: [DFUEvent]) -> String {
        events.compactMap { event -> String? in
            switch event {
            case .log(let level, let message): "[\(level)] \(message)"
            case .result(let result): "result \(result.identifier) \(result.failure?.message ?? "")"
            default: nil
            }
        }.joined(separator: "\n")
    }
}

extension [DFUEvent] {
    var states: [DFUState] {
        compactMap { if case .state(let state) = $0 { state } else { nil } }
    }

    var progress: [DFUProgress] {
        compactMap { if case .progress(let progress) = $0 { progress } else { nil } }
    }

    var versionChecks: [DFUVersionCheck] {
        compactMap { if case .version(let check) = $0 { check } else { nil } }
    }
}
