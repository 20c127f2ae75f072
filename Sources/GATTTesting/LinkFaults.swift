import GATT

extension FakeCharacteristic {
    /// `real`, on a link that drops when a command that `drops` accepts is written: the link is
    /// disconnected and the write fails with `GATTError.disconnected`.
    public static func droppingLink(
        _ link: any GATTPeripheral, on real: any GATTCharacteristic,
        atCommand drops: @escaping @Sendable ([UInt8]) -> Bool
    ) -> FakeCharacteristic {
        FakeCharacteristic(
            real,
            writeWithoutResponse: { value, real in
                guard drops(value) else { return try await real.writeWithoutResponse(value) }
                await link.disconnect()
                throw GATTError.disconnected(device: link.address.description, reason: "the link dropped")
            })
    }

    /// `real`, whose first notification that `loses` accepts never arrives; the others do.
    public static func losingNotification(
        _ real: any GATTCharacteristic, where loses: @escaping @Sendable ([UInt8]) -> Bool
    ) -> FakeCharacteristic {
        FakeCharacteristic(
            real,
            subscribe: { timeout, real in
                let notifications = try await real.subscribe(timeout: timeout)
                return AsyncThrowingStream { continuation in
                    let task = Task {
                        var lost = false
                        do {
                            for try await value in notifications {
                                if !lost, loses(value) {
                                    lost = true
                                } else {
                                    continuation.yield(value)
                                }
                            }
                            continuation.finish()
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                    continuation.onTermination = { _ in task.cancel() }
                }
            })
    }
}
