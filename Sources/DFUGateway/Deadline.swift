import DFUSupport

/// Store calls bounded by a lease.
enum Deadline {
    /// The result of `operation`, or nil when `deadline` comes first. The operation runs in a
    /// task of its own and is not waited for past the deadline: a store call stuck on a dead
    /// connection must not hold a gateway beyond the moment its lease runs out.
    static func result<T: Sendable>(
        of operation: @escaping @Sendable () async throws -> T, before deadline: ContinuousClock.Instant
    ) async -> Result<T, any Error>? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
            let pending = Locked<CheckedContinuation<Result<T, any Error>?, Never>?>(continuation)
            let finish: @Sendable (Result<T, any Error>?) -> Void = { value in
                pending.withLock { waiting in
                    defer { waiting = nil }
                    return waiting
                }?.resume(returning: value)
            }
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                finish(nil)
            }
            Task {
                do {
                    finish(.success(try await operation()))
                } catch {
                    finish(.failure(error))
                }
                timer.cancel()
            }
        }
    }
}
