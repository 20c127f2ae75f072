import DFUSimulator
import XCTest

@testable import NordicDFU

/// Pause, resume and abort through the controller.
final class ControlTests: XCTestCase {
    func testPauseHoldsTheTransferUntilResumed() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secure, accepting: package)
        let updater = DFUUpdater(
            package: package, central: harness.central, device: harness.device,
            options: EngineHarness.testOptions())
        let (controller, events) = updater.start()
        var reportsWhilePaused = 0
        var paused = false
        var resumed = false
        var result: DFUResult?
        for await event in events {
            switch event {
            case .progress(let progress) where !paused && progress.percent > 0:
                controller.pause()
                paused = true
                XCTAssertTrue(controller.isPaused)
                Task {
                    try await Task.sleep(for: .milliseconds(300))
                    controller.resume()
                }
            case .progress where paused && !resumed:
                if controller.isPaused { reportsWhilePaused += 1 } else { resumed = true }
            case .result(let final):
                result = final
            default:
                break
            }
        }
        XCTAssertTrue(paused)
        // The batch in flight when pause() was called may still report once.
        XCTAssertLessThanOrEqual(reportsWhilePaused, 1)
        XCTAssertEqual(result?.outcome, .completed)
        harness.assertRuns(package)
    }

    func testAbortDuringUploadLeavesTheDeviceAbleToTakeTheUpdate() async throws {
        let cases: [(SimulatedDeviceKind, DFUPackage)] = [
            (.secure, try TestPackages.secureApp()), (.secureApp, try TestPackages.secureApp()),
            (.legacy, try TestPackages.legacyApp()), (.legacyApp, try TestPackages.legacyApp()),
        ]
        for (kind, package) in cases {
            let harness = try EngineHarness(kind, accepting: package)
            let updater = DFUUpdater(
                package: package, central: harness.central, device: harness.device,
                options: EngineHarness.testOptions())
            let (controller, events) = updater.start()
            var collected: [DFUEvent] = []
            for await event in events {
                collected.append(event)
                if case .progress(let progress) = event, progress.percent >= 30 { controller.abort() }
            }
            guard case .result(let result) = collected.last else { return XCTFail("\(kind): no result") }
            XCTAssertEqual(result.outcome, .aborted, "\(kind): \(EngineHarness.logs(collected))")
            XCTAssertEqual(collected.states.last, .aborted, "\(kind)")
            XCTAssertLessThan(result.bytesSent, package.images[0].firmware.count, "\(kind)")
            await harness.assertCanTakeUpdate(package)
        }
    }

    func testAbortBeforeConnectingEndsAborted() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package)
        let updater = DFUUpdater(
            package: package, central: harness.central, device: harness.device,
            options: EngineHarness.testOptions())
        let (controller, events) = updater.start()
        controller.abort()
        var last: DFUEvent?
        for await event in events { last = event }
        guard case .result(let result) = last else { return XCTFail("no result") }
        XCTAssertEqual(result.outcome, .aborted)
        XCTAssertEqual(harness.snapshot?.activations, 0)
    }
}
