import DFUSimulator
import DFUSupport
import GATT
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Pause, resume and abort through the controller.
final class ControlTests: XCTestCase {
    func testPauseHoldsTheTransferUntilResumed() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secure, accepting: package)
        let updater = DFUUpdater(
            package: package, central: harness.central, device: harness.device,
            options: EngineHarness.testOptions())
        // Paused from the observer, in the update's own task, so that the pause lands at the next
        // packet batch whatever the scheduling; counted there too.
        let controller = DFUController()
        let reportsWhilePaused = Locked(0)
        let pausedOnce = Locked(false)
        let (_, events) = updater.start(controller: controller) { event in
            guard case .progress(let progress) = event, progress.percent > 0 else { return }
            if controller.isPaused {
                reportsWhilePaused.withLock { $0 += 1 }
            } else if !pausedOnce.withLock({ $0 }) {
                pausedOnce.withLock { $0 = true }
                controller.pause()
            }
        }
        var result: DFUResult?
        var resumer: Task<Void, any Error>?
        for await event in events {
            if case .progress = event, controller.isPaused, resumer == nil {
                resumer = Task {
                    // once held at its checkpoint the update can send and report nothing more
                    let deadline = ContinuousClock.now + .seconds(10)
                    while !controller.isHolding, ContinuousClock.now < deadline { await Task.yield() }
                    XCTAssertTrue(controller.isHolding, "the paused update never stopped at a checkpoint")
                    XCTAssertEqual(reportsWhilePaused.withLock { $0 }, 0, "progress while paused")
                    controller.resume()
                }
            }
            if case .result(let final) = event { result = final }
        }
        XCTAssertNotNil(resumer, "never paused")
        try await resumer?.value
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
            // Aborted from the observer, in the update's own task, so that the abort lands at the
            // next packet batch: the simulated link outruns any consumer of the event stream.
            let controller = DFUController()
            let (_, events) = updater.start(controller: controller) { event in
                if case .progress(let progress) = event, progress.percent >= 30 { controller.abort() }
            }
            var collected: [DFUEvent] = []
            for await event in events { collected.append(event) }
            guard case .result(let result) = collected.last else { return XCTFail("\(kind): no result") }
            XCTAssertEqual(result.outcome, .aborted, "\(kind): \(EngineHarness.logs(collected))")
            XCTAssertEqual(collected.states.last, .aborted, "\(kind)")
            XCTAssertLessThan(result.bytesSent, package.images[0].firmware.count, "\(kind)")
            XCTAssertEqual(harness.snapshot?.activations, 0, "\(kind)")
            await harness.assertCanTakeUpdate(package)
        }
    }

    func testAbortBeforeConnectingEndsAborted() async throws {
        let package = try TestPackages.secureApp()
        let harness = try EngineHarness(.secureApp, accepting: package)
        let updater = DFUUpdater(
            package: package, central: harness.central, device: harness.device,
            options: EngineHarness.testOptions())
        // aborted before the update's task runs at all (an abort after start() races with an
        // update that may finish first on a loaded machine)
        let controller = DFUController()
        controller.abort()
        let (_, events) = updater.start(controller: controller)
        var last: DFUEvent?
        for await event in events { last = event }
        guard case .result(let result) = last else { return XCTFail("no result") }
        XCTAssertEqual(result.outcome, .aborted)
        XCTAssertEqual(harness.snapshot?.activations, 0)
    }
}
