import DBus
import GATT
import Synchronization

/// Serves GATT services on a BlueZ adapter: exports them as a GATT application
/// (`GattManager1.RegisterApplication`) and advertises (`LEAdvertisingManager1`). Used by the
/// system tests, benchmarks and simulated devices.
///
/// bluetoothd calls the handlers of `LocalCharacteristic` for reads and writes; `notify` sends a
/// notification (or indication) to the subscribed central.
public final class BlueZGATTServer: Sendable {
    private static let applicationCounter = Mutex(0)

    /// The adapter's name, e.g. `hci1`.
    public let adapterName: String
    /// The adapter's address: the address centrals connect to.
    public let adapterAddress: String

    private let bus: BlueZBus
    private let adapter: Adapter
    private let root: String
    private let advertisementPaths: [String]
    /// Characteristic UUID → object path.
    private let characteristicPaths: [BluetoothUUID: String]
    private let subscribed = Subscriptions()
    private let acquiredWrites = AcquiredWrites()

    /// Exports `services`, registers them with bluetoothd on `adapter` (`hciN`, its address, or
    /// the first one) and registers each of `advertisements`. Several identical advertisements
    /// make the controller rotate them, which some controllers (btvirt) need to be seen by a
    /// scanner that starts later.
    public static func start(
        adapter: String? = nil, services: [LocalService], advertisements: [LocalAdvertisement]
    ) async throws -> BlueZGATTServer {
        let bus = try await BlueZBus.connect()
        let chosen: Adapter
        do {
            chosen = try Adapter.select(adapter, in: try await bus.managedObjects())
        } catch let error as DBusError {
            throw error.gattError("listing adapters", device: adapter ?? "adapter")
        }
        let number = applicationCounter.withLock {
            $0 += 1
            return $0
        }
        let root = "/dfu_update/server\(number)"
        let server = BlueZGATTServer(
            bus: bus, adapter: chosen, root: root, services: services,
            advertisementCount: advertisements.count)
        do {
            try server.export(services, advertisements)
            _ = try await bus.call(
                chosen.path, BlueZ.gattManagerInterface, "RegisterApplication",
                [.objectPath(root), .propertyDictionary([])], timeout: .seconds(20))
            for path in server.advertisementPaths {
                _ = try await bus.call(
                    chosen.path, BlueZ.advertisingManagerInterface, "RegisterAdvertisement",
                    [.objectPath(path), .propertyDictionary([])], timeout: .seconds(20))
            }
        } catch {
            await server.stop()
            throw gattError(error, "serving GATT on \(chosen.name)", device: chosen.name)
        }
        return server
    }

    private init(
        bus: BlueZBus, adapter: Adapter, root: String, services: [LocalService], advertisementCount: Int
    ) {
        self.bus = bus
        self.adapter = adapter
        self.root = root
        adapterName = adapter.name
        adapterAddress = adapter.address
        advertisementPaths = (0..<advertisementCount).map { "\(root)/advertisement\($0)" }
        var paths: [BluetoothUUID: String] = [:]
        for (serviceIndex, service) in services.enumerated() {
            for (index, characteristic) in service.characteristics.enumerated() {
                paths[characteristic.uuid] = "\(root)/service\(serviceIndex)/char\(index)"
            }
        }
        characteristicPaths = paths
    }

    /// Whether a central has subscribed to the characteristic's notifications.
    public func isSubscribed(_ uuid: BluetoothUUID) -> Bool {
        guard let path = characteristicPaths[uuid] else { return false }
        return subscribed.contains(path)
    }

    /// Sends `value` as a notification (or indication) of the characteristic. Returns false when
    /// no central is subscribed (nothing is sent then).
    @discardableResult
    public func notify(_ uuid: BluetoothUUID, _ value: [UInt8]) throws -> Bool {
        guard let path = characteristicPaths[uuid], subscribed.contains(path) else { return false }
        try bus.connection.emitSignal(
            path: path, interface: BlueZ.propertiesInterface, member: "PropertiesChanged",
            arguments: [
                .string(BlueZ.characteristicInterface), .propertyDictionary([("Value", .bytes(value))]),
                .stringArray([]),
            ])
        return true
    }

    /// Registers the advertisements again: after a central disconnected, not every controller
    /// (btvirt under kernel 6.1) resumes advertising by itself.
    public func restartAdvertising() async throws {
        for path in advertisementPaths {
            _ = try? await bus.call(
                adapter.path, BlueZ.advertisingManagerInterface, "UnregisterAdvertisement",
                [.objectPath(path)],
                timeout: .seconds(5))
        }
        for path in advertisementPaths {
            do {
                _ = try await bus.call(
                    adapter.path, BlueZ.advertisingManagerInterface, "RegisterAdvertisement",
                    [.objectPath(path), .propertyDictionary([])], timeout: .seconds(20))
            } catch {
                throw gattError(error, "advertising on \(adapterName)", device: adapterName)
            }
        }
    }

    /// Stops advertising, unregisters the application and leaves the bus (bluetoothd then drops
    /// the services; connected centrals stay connected).
    public func stop() async {
        acquiredWrites.stop()
        for path in advertisementPaths {
            _ = try? await bus.call(
                adapter.path, BlueZ.advertisingManagerInterface, "UnregisterAdvertisement",
                [.objectPath(path)],
                timeout: .seconds(5))
        }
        _ = try? await bus.call(
            adapter.path, BlueZ.gattManagerInterface, "UnregisterApplication", [.objectPath(root)],
            timeout: .seconds(5))
        bus.connection.close()
    }

    // MARK: - exported objects

    private func export(_ services: [LocalService], _ advertisements: [LocalAdvertisement]) throws {
        let connection = bus.connection
        try connection.addObjectManager(at: root)
        for (serviceIndex, service) in services.enumerated() {
            let servicePath = "\(root)/service\(serviceIndex)"
            try connection.exportObject(
                at: servicePath,
                interfaces: [
                    DBusInterface(
                        BlueZ.serviceInterface,
                        properties: [
                            DBusProperty("UUID", value: .string(service.uuid.uuidString)),
                            DBusProperty("Primary", value: .boolean(true)),
                        ])
                ])
            for characteristic in service.characteristics {
                guard let path = characteristicPaths[characteristic.uuid] else { continue }
                try connection.exportObject(
                    at: path,
                    interfaces: [characteristicInterface(characteristic, path: path, service: servicePath)])
            }
        }
        for (path, advertisement) in zip(advertisementPaths, advertisements) {
            var properties = [
                DBusProperty("Type", value: .string("peripheral")),
                DBusProperty(
                    "ServiceUUIDs", value: .stringArray(advertisement.serviceUUIDs.map(\.uuidString))),
                DBusProperty("Discoverable", value: .boolean(advertisement.isDiscoverable)),
            ]
            if let name = advertisement.localName {
                properties.append(DBusProperty("LocalName", value: .string(name)))
            }
            try connection.exportObject(
                at: path,
                interfaces: [
                    DBusInterface(
                        BlueZ.advertisementInterface,
                        methods: [DBusMethod("Release") { _ in [] }], properties: properties)
                ])
        }
    }

    /// The characteristic's methods run as bluetoothd's calls are dispatched, so that they run
    /// in the order bluetoothd calls them and bluetoothd gets each answer at once (a link that
    /// drops while bluetoothd 5.66 waits for the answer to a write crashes it, docs/dfu-sim.md);
    /// writes reach `onWrite` in the order they came over the air (`AcquiredWrites`).
    private func characteristicInterface(_ characteristic: LocalCharacteristic, path: String, service: String)
        -> DBusInterface
    {
        let subscribed = self.subscribed
        let writes = acquiredWrites
        let onWrite = characteristic.onWrite
        let onRead = characteristic.onRead
        var methods = [
            DBusMethod.immediate("ReadValue", in: "a{sv}", out: "ay") { _ in
                guard let onRead else { throw Self.notPermitted("read") }
                return [.bytes(try onRead())]
            },
            DBusMethod.immediate("WriteValue", in: "aya{sv}") { call in
                guard let onWrite else { throw Self.notPermitted("write") }
                try writes.deliver(call.arguments.first?.bytes ?? [], to: onWrite)
                return []
            },
            DBusMethod.immediate("StartNotify") { _ in
                subscribed.set(path, true)
                return []
            },
            DBusMethod.immediate("StopNotify") { _ in
                subscribed.set(path, false)
                return []
            },
        ]
        var properties = [
            DBusProperty("UUID", value: .string(characteristic.uuid.uuidString)),
            DBusProperty("Service", value: .objectPath(service)),
            DBusProperty("Flags", value: .stringArray(characteristic.flagNames)),
        ]
        // bluetoothd 5.66 acquires a socket for a characteristic that has this property
        if let onWrite, characteristic.acquiresWrites,
            characteristic.properties.contains(.writeWithoutResponse)
        {
            methods.append(
                DBusMethod.immediate("AcquireWrite", in: "a{sv}", out: "hq") { call in
                    try writes.acquire(options: call.arguments, handler: onWrite)
                })
            properties.append(DBusProperty("WriteAcquired", value: .boolean(false)))
        }
        return DBusInterface(BlueZ.characteristicInterface, methods: methods, properties: properties)
    }

    private static func notPermitted(_ what: String) -> DBusError {
        .error(name: "org.bluez.Error.NotPermitted", message: "\(what) not permitted")
    }
}

/// The characteristic paths a central subscribed to.
private final class Subscriptions: Sendable {
    private let paths = Mutex<Set<String>>([])

    func contains(_ path: String) -> Bool { paths.withLock { $0.contains(path) } }

    func set(_ path: String, _ subscribed: Bool) {
        paths.withLock { paths in
            if subscribed { paths.insert(path) } else { paths.remove(path) }
        }
    }
}
