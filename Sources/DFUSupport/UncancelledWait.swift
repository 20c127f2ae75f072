/// Runs `body` in a task of its own and waits for its end even when the calling task is
/// cancelled, calling `onCancel` then instead. For reading an `AsyncStream` to its end: in a
/// cancelled task its iterator ends at once and drops what the producer still sends once it
/// stopped (an aborted update's result with the bytes it sent, a fleet's report).
package func waitUncancelled<T: Sendable>(
    onCancel: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () async -> T
) async -> T {
    let task = Task { await body() }
    return await withTaskCancellationHandler {
        await task.value
    } onCancel: {
        onCancel()
    }
}
