import DFUSupport
import GATT

/// Virtual time in nanoseconds since the simulation started. Integers keep the link arithmetic
/// exact and cheap; `Duration` appears only at the API.
typealias Nanoseconds = Int64

extension Duration {
    /// This duration in whole nanoseconds.
    var nanoseconds: Nanoseconds {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

extension Nanoseconds {
    var duration: Duration { .nanoseconds(self) }
}

/// The `LinkTime` of a `SimulatedCentral`: virtual time that the link and flash model advance.
/// `sleep(for:)` moves it forward at once, without waiting.
public struct SimulatedLinkTime: LinkTime {
    let world: SimulationWorld

    public func now() -> Duration { world.state.withLock { $0.now.duration } }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let delta = max(0, duration.nanoseconds)
        world.state.withLock { $0.now += delta }
    }
}
