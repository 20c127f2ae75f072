/// Runs `operation`, giving up with `timeoutError()` once `limit` of real time has passed.
///
/// The package's one timeout: the operation runs in its own task, cancelled on timeout and then
/// abandoned, so a call that ignores cancellation cannot hold its caller past the limit.
/// Cancelling the calling task cancels the operation.
package func withRealTimeout<T: Sendable>(
    _ limit: Duration, orThrow timeoutError: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> T
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
                // claim the caller first: cancelled work may still end with a result of its own
                let caller = take()
                work.cancel()
                caller?.resume(throwing: timeoutError())
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

/// Runs `operation` for at most `limit` of real time; running out of time is a normal end, not
/// an error (e.g. a scan that lasts as long as it was asked to).
package func withRealTimeLimit(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> Void)
    async throws
{
    struct RanOut: Error {}
    do {
        try await withRealTimeout(limit, orThrow: { RanOut() }, operation)
    } catch is RanOut {}
}

extension Duration {
    /// This duration in seconds, as a `Double` (for speeds, messages and JSON).
    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
