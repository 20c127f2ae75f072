import DFUSupport
import GATT
import Synchronization

extension FakeCentral {
    /// A central whose devices refuse every write and subscription for `failure`, as the `BlueZ`
    /// module reports a device that did not pair (`GATTError.securityFailed`). Reads pass: a
    /// device's version is often open.
    public static func refusingForSecurity(_ central: any GATTCentral, failure: GATTSecurityFailure)
        -> FakeCentral
    {
        FakeCentral(
            central,
            link: { link, _ in
                let refusal = GATTError.securityFailed(
                    device: link.address.description, failure: failure, reason: "refused")
                return FakePeripheral(
                    link,
                    changingEach: { characteristic in
                        FakeCharacteristic(
                            characteristic, write: { _, _, _ in throw refusal },
                            writeWithoutResponse: { _, _ in throw refusal },
                            subscribe: { _, _ in throw refusal })
                    })
            })
    }

    /// A central whose devices stop advertising after `connections` connections, as a device
    /// that does not come back after a reset: scans find nothing until they time out, and
    /// connections fail.
    public static func vanishing(_ central: any GATTCentral, afterConnections connections: Int) -> FakeCentral
    {
        let left = Mutex(connections)
        return FakeCentral(
            central,
            scan: { filter, timeout, central in
                guard left.withLock({ $0 <= 0 }) else { return central.scan(filter, timeout: timeout) }
                return AsyncThrowingStream { continuation in
                    Task {
                        try? await Task.sleep(for: timeout)
                        continuation.finish(
                            throwing: GATTError.timeout(operation: "scan", seconds: timeout.seconds))
                    }
                }
            },
            connect: { device, timeout, central in
                let vanished = left.withLock {
                    $0 -= 1
                    return $0 < 0
                }
                guard !vanished else {
                    throw GATTError.connectionFailed(device: device.description, reason: "not advertising")
                }
                return try await central.connect(device, timeout: timeout)
            })
    }

    /// A central whose `number`-th link (the first is 1) is changed by `change`; every other link
    /// is the wrapped central's.
    public static func changing(
        _ central: any GATTCentral, link number: Int,
        _ change: @escaping @Sendable (any GATTPeripheral) -> any GATTPeripheral
    ) -> FakeCentral {
        FakeCentral(central, link: { link, opened in opened == number ? change(link) : link })
    }
}

extension FakePeripheral {
    /// A link to a device whose GATT table lacks the service `uuid`.
    public static func hiding(_ uuid: BluetoothUUID, on link: any GATTPeripheral) -> FakePeripheral {
        FakePeripheral(link, services: { link in try await link.services().filter { $0.uuid != uuid } })
    }
}
