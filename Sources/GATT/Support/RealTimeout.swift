/// Runs `operation`, giving up with `GATTError.timeout` once `limit` of real time has passed.
///
/// The operation runs in its own task, cancelled on timeout and then abandoned, so a transport
/// call that ignores cancellation cannot hold the engine past the limit.
package func withRealTimeout<T: Sendable>(
    _ limit: Duration, waitingFor what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let slot = Locked<CheckedContinuation<T, any Error>?>(nil)
    let take: @Sendable () -> CheckedContinuation<T, any Error>? = {
        slot.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
    }
    let work = Task { try await operation() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            slot.withLock { $0 = continuation }
            let timer = Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                work.cancel()
                take()?.resume(throwing: GATTError.timeout(operation: what, seconds: limit.seconds))
            }
            Task {
                let result = await work.result
                timer.cancel()
                take()?.resume(with: result)
            }
        }
    } onCancel: {
        work.cancel()
    }
}

extension Duration {
    /// This duration in seconds, as a `Double` (for speeds, messages and JSON).
    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
