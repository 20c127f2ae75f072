import Foundation

/// A value guarded by a lock, for state shared between tasks without an actor hop: callbacks that
/// must not suspend, and hot paths (the simulator keeps its world behind one, so that a write
/// without response costs one lock round trip and no task hop). Shared by the modules of this
/// package; not part of the GATT vocabulary.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
