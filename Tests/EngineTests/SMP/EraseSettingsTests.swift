import DFUSimulator
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// `DFUOptions.SMP.eraseSettings`: the application's settings are erased after the upload and
/// before the new image boots (docs/mcumgr.md, "Erase settings").
final class EraseSettingsTests: XCTestCase {
    private var options: DFUOptions {
        var options = DFUOptions()
        options.smp.eraseSettings = true
        return options
    }

    private func snapshot(_ central: SimulatedCentral) throws -> DeviceSnapshot {
        try XCTUnwrap(central.snapshot(of: SMPUpdateTests.address))
    }

    func testTheSettingsAreErasedOnceBeforeTheNewImageBoots() async throws {
        let central = try SimulatedCentral(devices: [SMPUpdateTests.device { $0.smp.eraseStorage = true }])
        let image = try SMPUpdateTests.image("1.1.0")
        let (result, events) = await SMPUpdateTests.update(image, on: central, options: options)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        XCTAssertEqual(try snapshot(central).settingsErasures, 1)
        XCTAssertEqual(try snapshot(central).firmwareRevision, "1.1.0")
        let lines = events.compactMap { if case .log(_, let line) = $0 { line } else { nil } }
        let erased = try XCTUnwrap(lines.firstIndex { $0.contains("the settings are erased") })
        let reset = try XCTUnwrap(lines.firstIndex { $0.lowercased().contains("reset") })
        XCTAssertLessThan(erased, reset, "erased after the reset: \(lines)")

        let (again, _) = await SMPUpdateTests.update(image, on: central, options: options)
        XCTAssertEqual(again.outcome, .skipped)
        XCTAssertEqual(try snapshot(central).settingsErasures, 1, "an up-to-date device keeps its settings")
    }

    func testADeviceWithoutTheCommandIsNotUpdated() async throws {
        let central = try SimulatedCentral(devices: [SMPUpdateTests.device()])
        let (result, _) = await SMPUpdateTests.update(
            try SMPUpdateTests.image("1.1.0"), on: central, options: options)
        XCTAssertEqual(result.failure?.error, .remoteMcumgrNotSupported, "\(result.outcome)")
        let message = result.failure?.message ?? ""
        XCTAssertTrue(
            message.contains("could not erase its settings") && message.contains("--erase-settings"), message)
        XCTAssertEqual(try snapshot(central).settingsErasures, 0)
        XCTAssertEqual(try snapshot(central).firmwareRevision, "1.0.0", "nothing was activated")
    }
}
