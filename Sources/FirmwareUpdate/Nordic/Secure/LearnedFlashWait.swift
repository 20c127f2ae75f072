/// The wait after each data object's Create, learned from packets the device lost while its
/// flash was busy (a full flash queue or no free transport buffer drops writes silently).
///
/// What a loss shows: the device took `offset` of the bytes sent, so the rest, at the rate they
/// were sent, is the time it could not take packets (`blockedTime`). Waiting that much longer
/// would have avoided the loss, so:
/// - the retry of that object (a new Create) waits what it waited plus the blocked time (a lost
///   tail is resent after the blocked time, see `SecureDataObjects`);
/// - a loss on a later object measures the steady need (the page erase outlasting what the
///   device queues): every Create waits at least that from now on (`base`), and at least one
///   connection event (half the Create's round trip) more than before, so that it converges;
/// - a loss on the first object sent after the init packet also measures the settings pages an
///   SDK 15–17 bootloader writes after the init packet's Execute (two more erases), a one-off:
///   `base` grows by one Create round trip only, the rest (`extra`) is halved after every clean
///   object.
/// A loss again after a wait counts at least that wait as blocked (the caller), so repeated
/// losses double the wait. Both are capped (`cap`).
struct LearnedFlashWait {
    /// The longest wait after a Create.
    static let cap: Duration = .seconds(2)

    private(set) var base: Duration = .zero
    private(set) var extra: Duration = .zero

    /// The wait after the next Create.
    var afterCreate: Duration { min(base + extra, Self.cap) }

    /// How long the device could not take packets: the bytes it lost at the rate they were sent.
    static func blockedTime(lostBytes: Int, sentBytes: Int, over duration: Duration) -> Duration {
        guard lostBytes > 0, sentBytes > 0, duration > .zero else { return .zero }
        return min(duration * (Double(min(lostBytes, sentBytes)) / Double(sentBytes)), cap)
    }

    /// An object sent `waited` after its Create lost packets for `blocked`; `roundTrip` is the
    /// Create's own round trip, the steps in which the engine sees the device.
    mutating func learnLoss(waited: Duration, blocked: Duration, roundTrip: Duration, firstObjectOfPart: Bool)
    {
        let measured = min(waited + blocked, Self.cap)
        base =
            firstObjectOfPart
            ? min(base + roundTrip, Self.cap) : min(max(base + roundTrip / 2, measured), Self.cap)
        extra = max(.zero, measured - base)
    }

    /// An object arrived whole after its Create.
    mutating func learnCleanObject() {
        extra = extra / 2
    }
}
