import DFUSupport
import GATT

/// A central that gives the link a device's probe left up to the first connection to that
/// link's address, so that the update goes on where the probe ended instead of disconnecting
/// and connecting again (a gateway's fleet of one, docs/gateway.md); every other connection,
/// and that one once the link is down, goes through the central it wraps.
final class HandOverCentral: GATTCentral {
    private let central: any GATTCentral
    private let parked: Locked<(any GATTPeripheral)?>

    init(_ central: any GATTCentral, handing link: any GATTPeripheral) {
        self.central = central
        parked = Locked(link)
    }

    var linkTime: any LinkTime { central.linkTime }
    var taskExecutor: (any TaskExecutor)? { central.taskExecutor }

    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error> {
        central.scan(filter, timeout: timeout)
    }

    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        if case .address(let address) = device, let link = take(address) {
            if await link.isConnected { return link }
            await link.disconnect()
        }
        return try await central.connect(device, timeout: timeout)
    }

    /// Disconnects the link if no connection took it (the update ended before connecting).
    func close() async {
        guard let link = parked.withLock({ $0.take() }) else { return }
        await link.disconnect()
    }

    /// The parked link, once, if it is to `address`.
    private func take(_ address: BluetoothAddress) -> (any GATTPeripheral)? {
        parked.withLock { link in link?.address == address ? link.take() : nil }
    }
}
