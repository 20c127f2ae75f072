import GATT
import Synchronization

/// The GATT tables a central keeps for each address and lists again at the next connection
/// there, as bluetoothd does for a device it is not told has changed (no Database Hash, no
/// Service Changed: a real nRF5 bootloader at its application's address).
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
public final class KeptTables: Sendable {
    private let bonded: Bool
    private let kept = Mutex<[BluetoothAddress: [GATTService]]>([:])
    private let discards = Mutex(0)

    /// No table kept yet; `bonded`: the central holds the bond of every device.
    public init(bonded: Bool = false) { self.bonded = bonded }

    /// How many times a stale table was discarded.
    public var discarded: Int { discards.withLock { $0 } }

    /// `central`, listing these tables.
    public func central(over central: any GATTCentral) -> FakeCentral {
        FakeCentral(central, link: { [self] link, _ in try await listing(on: link) })
    }

    private func listing(on link: any GATTPeripheral) async throws -> any GATTPeripheral {
        let own = try await link.services()
        let address = link.address
        let stale: [GATTService]? = kept.withLock { kept in
            if let table = kept[address], Self.layout(of: table) != Self.layout(of: own) { return table }
            kept[address] = own
            return nil
        }
        guard let stale else { return link }
        let discard: @Sendable () async -> GATTError = { [self] in
            kept.withLock { $0[address] = nil }
            discards.withLock { $0 += 1 }
            await link.disconnect()
            return .disconnected(
                device: address.description, reason: "the central's table of the device is stale")
        }
        // the device has no attribute at the handles of the stale table
        let table = stale.map { service in
            GATTService(
                uuid: service.uuid,
                characteristics: service.characteristics.map {
                    FakeCharacteristic(
                        $0, read: { _, _ in throw await discard() },
                        write: { _, _, _ in throw await discard() },
                        writeWithoutResponse: { _, _ in throw await discard() },
                        subscribe: { _, _ in throw await discard() })
                })
        }
        let bonded = bonded
        return FakePeripheral(
            link, services: { _ in table },
            disconnectDiscardingCachedServices: { link in
                if bonded { await link.disconnect() } else { _ = await discard() }
            },
            servicesAfterChange: { [self] _, isWanted, _ in
                guard bonded else { return nil }
                kept.withLock { $0[address] = own }
                return isWanted(own) ? own : nil
            })
    }

    private static func layout(of table: [GATTService]) -> [[BluetoothUUID]] {
        table.map { [$0.uuid] + $0.characteristics.map(\.uuid) }
    }
}
