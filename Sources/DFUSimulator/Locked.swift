import Foundation

/// A value guarded by a lock: every access runs inside `withLock`.
///
/// The simulator keeps its whole world behind one lock rather than in an actor, so that a write
/// without response costs one lock round trip and no task hop; the engine sends up to 10^5 of them.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
