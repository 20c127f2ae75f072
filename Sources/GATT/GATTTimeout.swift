import DFUSupport

/// Runs `operation`, giving up with `GATTError.timeout` once `limit` of real time has passed
/// (`withRealTimeout` with the error every GATT wait reports).
package func withRealTimeout<T: Sendable>(
    _ limit: Duration, waitingFor what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withRealTimeout(
        limit, orThrow: { GATTError.timeout(operation: what, seconds: limit.seconds) }, operation)
}
