import GATT
import Synchronization

/// A central that pairs as BlueZ's does, as far as its user sees it: it records the passkey
/// source given for each device, holds a bond from the first connection on (the device asked
/// for security and was paired), and forgets it when told.
public final class BondingCentral: PairingCentral {
    private let central: any GATTCentral
    private let given = Mutex<[(PasskeySource?, String)]>([])
    private let removals = Mutex<[String]>([])
    private let bonded: Mutex<Bool>

    /// `central`, pairing; `bondedBefore`: it holds the bond before the first connection.
    public init(_ central: any GATTCentral, bondedBefore: Bool) {
        self.central = central
        bonded = Mutex(bondedBefore)
    }

    /// The passkey sources given, each with the address it was given for, in order.
    public var passkeys: [(PasskeySource?, String)] { given.withLock { $0 } }

    /// The addresses whose bond was removed, in order.
    public var removed: [String] { removals.withLock { $0 } }

    public var linkTime: any LinkTime { central.linkTime }
    public var taskExecutor: (any TaskExecutor)? { central.taskExecutor }

    public func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error>
    {
        central.scan(filter, timeout: timeout)
    }

    public func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let link = try await central.connect(device, timeout: timeout)
        bonded.withLock { $0 = true }
        return link
    }

    public func usePasskey(_ source: PasskeySource?, for address: BluetoothAddress) {
        given.withLock { $0.append((source, address.description)) }
    }

    public func isPaired(address: BluetoothAddress) async throws -> Bool { bonded.withLock { $0 } }

    public func removeBond(address: BluetoothAddress) async throws {
        removals.withLock { $0.append(address.description) }
        bonded.withLock { $0 = false }
    }
}
