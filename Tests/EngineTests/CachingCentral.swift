import GATT
import Synchronization

/// A central that keeps the GATT table it listed for each address and lists it again at the
/// next connection there, as bluetoothd does for a device it is not told has changed (no
/// Database Hash, no Service Changed: a real nRF5 bootloader at its application's address).
///
/// A kept table that no longer matches the device is stale: using any of its characteristics
/// discards it and drops the link (`disconnected`), as the `BlueZ` module does on ATT error
/// 0x01, and so does `disconnectDiscardingCachedServices`. The next connection then lists the
/// device's own table, and keeps it.
///
/// `bonded`: the central holds the device's bond, as bluetoothd after pairing. It then keeps the
/// table through `disconnectDiscardingCachedServices` (bluetoothd does not remove a paired
/// device), and the device's Service Changed, once the link is encrypted, replaces the stale
/// table on the link (`servicesAfterChange`).
final class CachingCentral: GATTCentral {
    private let central: any GATTCentral
    private let bonded: Bool
    private let kept = Mutex<[BluetoothAddress: [GATTService]]>([:])
    private let discards = Mutex(0)

    init(_ central: any GATTCentral, bonded: Bool = false) {
        self.central = central
        self.bonded = bonded
    }

    var linkTime: any LinkTime { central.linkTime }

    /// How many times a stale table was discarded.
    var discardedTables: Int { discards.withLock { $0 } }

    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error> {
        central.scan(filter, timeout: timeout)
    }

    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let peripheral = try await central.connect(device, timeout: timeout)
        let own = try await peripheral.services()
        let stale: [GATTService]? = kept.withLock { kept in
            if let table = kept[peripheral.address], Self.layout(of: table) != Self.layout(of: own) {
                return table
            }
            kept[peripheral.address] = own
            return nil
        }
        guard let stale else { return peripheral }
        let address = peripheral.address
        let discard: @Sendable () async -> GATTError = { [self] in
            kept.withLock { $0[address] = nil }
            discards.withLock { $0 += 1 }
            await peripheral.disconnect()
            return .disconnected(
                device: address.description, reason: "the central's table of the device is stale")
        }
        let table = stale.map { service in
            GATTService(
                uuid: service.uuid,
                characteristics: service.characteristics.map { StaleCharacteristic($0, use: discard) })
        }
        let changed: @Sendable () -> [GATTService] = { [self] in
            kept.withLock { $0[address] = own }
            return own
        }
        return StalePeripheral(
            peripheral, listing: table, discard: discard, serviceChanged: bonded ? changed : nil)
    }

    private static func layout(of table: [GATTService]) -> [[BluetoothUUID]] {
        table.map { [$0.uuid] + $0.characteristics.map(\.uuid) }
    }
}

/// A link on which the central lists a table the device no longer has.
private final class StalePeripheral: GATTPeripheral {
    private let peripheral: any GATTPeripheral
    private let table: [GATTService]
    private let discard: @Sendable () async -> GATTError
    /// The device's own table, once its Service Changed arrived; nil without a bond.
    private let serviceChanged: (@Sendable () -> [GATTService])?

    init(
        _ peripheral: any GATTPeripheral, listing table: [GATTService],
        discard: @escaping @Sendable () async -> GATTError, serviceChanged: (@Sendable () -> [GATTService])?
    ) {
        self.peripheral = peripheral
        self.table = table
        self.discard = discard
        self.serviceChanged = serviceChanged
    }

    var address: BluetoothAddress { peripheral.address }
    var name: String? { peripheral.name }
    var mtu: Int { get async { await peripheral.mtu } }
    var isConnected: Bool { get async { await peripheral.isConnected } }

    func services() async throws -> [GATTService] { table }

    func disconnect() async { await peripheral.disconnect() }

    func waitForDisconnection(timeout: Duration) async throws {
        try await peripheral.waitForDisconnection(timeout: timeout)
    }

    func disconnectDiscardingCachedServices() async {
        guard serviceChanged == nil else { return await peripheral.disconnect() }
        _ = await discard()
    }

    func servicesAfterChange(
        timeout: Duration, until isWanted: @escaping @Sendable ([GATTService]) -> Bool
    ) async throws -> [GATTService]? {
        guard let own = serviceChanged?(), isWanted(own) else { return nil }
        return own
    }
}

/// A characteristic of a stale table: the device has no attribute at its handle.
private final class StaleCharacteristic: GATTCharacteristic {
    let uuid: BluetoothUUID
    let serviceUUID: BluetoothUUID
    let properties: CharacteristicProperties
    private let use: @Sendable () async -> GATTError

    init(_ listed: any GATTCharacteristic, use: @escaping @Sendable () async -> GATTError) {
        uuid = listed.uuid
        serviceUUID = listed.serviceUUID
        properties = listed.properties
        self.use = use
    }

    var maximumWriteWithoutResponseLength: Int { 20 }

    func read(timeout: Duration) async throws -> [UInt8] { throw await use() }

    func write(_ value: [UInt8], timeout: Duration) async throws { throw await use() }

    func writeWithoutResponse(_ value: [UInt8]) async throws { throw await use() }

    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        throw await use()
    }
}
