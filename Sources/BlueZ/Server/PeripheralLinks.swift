import DBus
import DFUSupport
import Foundation
import GATT

/// The links centrals have with this host on one adapter, seen from the peripheral's side
/// (bluetoothd's `Device1.Connected` of each central), and a way to drop them.
public final class PeripheralLinks: Sendable {
    /// A central connected or disconnected.
    public enum Event: Equatable, Sendable {
        case connected(address: String)
        case disconnected(address: String)
    }

    /// The adapter's name (`hciN`) and address.
    public let adapterName: String
    public let adapterAddress: String
    /// Link changes, in the order bluetoothd reports them.
    public let events: AsyncStream<Event>

    private let bus: BlueZBus
    private let adapter: Adapter
    private let addressTypes = Locked<[String: String]>([:])
    private let watcher: Task<Void, Never>

    /// Watches `adapter` (`hciN`, its address, or nil: the first one).
    public static func watch(adapter: String?) async throws -> PeripheralLinks {
        let bus = try await BlueZBus.connect()
        do {
            let tree = try await bus.managedObjects()
            let chosen = try Adapter.select(adapter, in: tree)
            let signals = try await bus.signals(under: chosen.path)
            return PeripheralLinks(bus: bus, adapter: chosen, tree: tree, signals: signals)
        } catch let error as DBusError {
            bus.connection.close()
            throw error.gattError("watching links", device: adapter ?? "adapter")
        }
    }

    private init(bus: BlueZBus, adapter: Adapter, tree: ObjectTree, signals: AsyncStream<BusSignal>) {
        self.bus = bus
        adapterName = adapter.name
        adapterAddress = adapter.address
        self.adapter = adapter
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        let addressTypes = addressTypes
        for path in tree.paths(with: BlueZ.deviceInterface, under: adapter.path) {
            if let properties = tree.properties(path, BlueZ.deviceInterface) {
                Self.note(properties, at: path, types: addressTypes, continuation)
            }
        }
        watcher = Task {
            for await signal in signals {
                if let added = signal.interfacesAdded,
                    let properties = added.interfaces[BlueZ.deviceInterface]
                {
                    Self.note(properties, at: added.path, types: addressTypes, continuation)
                } else if let change = signal.propertiesChanged, change.interface == BlueZ.deviceInterface {
                    Self.note(change.changed, at: signal.path, types: addressTypes, continuation)
                }
            }
            continuation.finish()
        }
    }

    deinit {
        watcher.cancel()
        bus.connection.close()
    }

    private static func note(
        _ properties: [String: DBusValue], at path: String, types: Locked<[String: String]>,
        _ continuation: AsyncStream<Event>.Continuation
    ) {
        let address = DevicePath.address(of: path)
        if let type = properties["AddressType"]?.stringValue { types.withLock { $0[address] = type } }
        switch properties["Connected"]?.boolValue {
        case true?: continuation.yield(.connected(address: address))
        case false?: continuation.yield(.disconnected(address: address))
        case nil: break
        }
    }

    /// Drops the link to `address` through the kernel's management interface (about 0.2 s; needs
    /// root), else with `Device1.Disconnect` (about 2 s).
    public func disconnect(_ address: String) async {
        if let index = UInt16(adapterName.dropFirst(3)), let peer = BluetoothAddress(address) {
            let type: UInt8 = addressTypes.withLock { $0[address] } == "random" ? 2 : 1
            do {
                let kernel = try KernelSocket(.control)
                // MGMT_OP_DISCONNECT: address, address type (1 LE public, 2 LE random)
                try kernel.management(
                    0x0014, controller: index, peer.wireOrder + [type], timeout: .seconds(3))
                return
            } catch {}
        }
        _ = try? await bus.call(
            adapter.devicePath(for: address), BlueZ.deviceInterface, "Disconnect", timeout: .seconds(10))
    }
}

/// Device object paths: `<adapter>/dev_AA_BB_CC_DD_EE_FF`.
enum DevicePath {
    /// The address in a device's object path.
    static func address(of path: String) -> String {
        String(path.split(separator: "/").last?.dropFirst(4) ?? "").replacingOccurrences(of: "_", with: ":")
    }
}
