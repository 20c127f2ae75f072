import DFUSupport
import GATT
import XCTest

/// The one real-time timeout (`DFUSupport.withRealTimeout`).
final class RealTimeoutTests: XCTestCase {
    private struct TimedOut: Error {}

    /// Work that ends normally once cancelled (as a wait for a signal does) must not turn a
    /// timeout into a success: the caller is claimed before the work is cancelled.
    func testWorkThatEndsQuietlyWhenCancelledStillTimesOut() async {
        for attempt in 0..<200 {
            do {
                let quietWhenCancelled: @Sendable () async -> Void = {
                    try? await Task.sleep(for: .seconds(10))
                }
                try await withRealTimeout(.milliseconds(1), orThrow: { TimedOut() }, quietWhenCancelled)
                return XCTFail("attempt \(attempt): the timeout was reported as a success")
            } catch {
                XCTAssertTrue(error is TimedOut, "attempt \(attempt): \(error)")
            }
        }
    }

    func testResultWithinTheLimitIsReturned() async throws {
        let value = try await withRealTimeout(.seconds(10), orThrow: { TimedOut() }, { 42 })
        XCTAssertEqual(value, 42)
    }

    func testGATTFormThrowsGATTTimeoutNamingTheWait() async {
        do {
            try await withRealTimeout(.milliseconds(1), waitingFor: "a notification") {
                try await Task.sleep(for: .seconds(10))
            }
            XCTFail("no timeout")
        } catch GATTError.timeout(let operation, _) {
            XCTAssertEqual(operation, "a notification")
        } catch {
            XCTFail("expected GATTError.timeout, got \(error)")
        }
    }

    /// The limit ends the call, not the operation's own end: an operation that would run for 10 s
    /// is still running (cancelled, not finished) when the call returns.
    func testATimeLimitThatRunsOutEndsNormally() async throws {
        let ranToItsEnd = Locked(false)
        try await withRealTimeLimit(.milliseconds(1)) {
            try await Task.sleep(for: .seconds(10))
            ranToItsEnd.withLock { $0 = true }
        }
        XCTAssertFalse(
            ranToItsEnd.withLock { $0 }, "returned only after the operation ended: the limit was ignored")
    }
}
