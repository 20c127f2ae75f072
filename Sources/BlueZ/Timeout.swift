import GATT

/// Runs `body`, and throws `GATTError.timeout(operation:)` instead when `limit` passes first
/// (`body` is cancelled then).
func withTimeout<T: Sendable>(
    _ limit: Duration, _ operation: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw GATTError.timeout(operation: operation, seconds: limit.seconds)
        }
        return result
    }
}
