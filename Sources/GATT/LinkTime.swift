/// The time base of a link. Real for a radio; virtual for a simulated device, whose link and
/// flash model advance it as operations would take time on a real one. The DFU engine measures
/// speeds and waits its deliberate delays on the link's time, and bounds every wait in real time.
public protocol LinkTime: Sendable {
    /// Time elapsed since a fixed start.
    func now() -> Duration
    /// Lets `duration` pass on this time base.
    func sleep(for duration: Duration) async throws
}

/// Wall-clock time, for real links.
public struct RealLinkTime: LinkTime {
    private let start = ContinuousClock.now

    public init() {}

    public func now() -> Duration { ContinuousClock.now - start }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
