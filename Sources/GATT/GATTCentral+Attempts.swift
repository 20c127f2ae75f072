extension GATTCentral {
    /// Connects to `target` and opens the link with `open`, up to `attempts` times, each connect
    /// bounded by `timeout`; a link whose opening fails is closed before the next attempt.
    /// Gives up at once when Bluetooth is unavailable or pairing failed (a device may lock out
    /// after failed attempts), and on any error that is not a `GATTError`; otherwise throws the
    /// last attempt's error. `beforeEach` runs before every attempt (a cancellation check, a
    /// pause); `failed` hears each attempt that failed and will be retried or reported.
    public func connect<Link>(
        _ target: DeviceIdentifier, attempts: Int, timeout: Duration,
        beforeEach: () async throws -> Void = { try Task.checkCancellation() },
        failed: (_ attempt: Int, _ error: GATTError) -> Void = { _, _ in },
        open: (any GATTPeripheral) async throws -> Link
    ) async throws -> Link {
        var lastError = GATTError.connectionFailed(device: target.description, reason: "no attempt made")
        for attempt in 1...max(1, attempts) {
            try await beforeEach()
            do {
                let peripheral = try await connect(target, timeout: timeout)
                do {
                    return try await open(peripheral)
                } catch {
                    // a failure while opening the link must not leave it up (it is no one's now)
                    await peripheral.disconnect()
                    throw error
                }
            } catch let error as GATTError {
                switch error {
                case .bluetoothUnavailable, .securityFailed: throw error
                default:
                    lastError = error
                    failed(attempt, error)
                }
            }
        }
        throw lastError
    }
}
