import DBus
import DFUSupport
import GATT
import Synchronization

/// A GATT central on a BlueZ adapter, through bluetoothd's D-Bus API.
///
/// ```swift
/// let central = try await BlueZCentral(adapter: "hci0")
/// for try await advertisement in central.scan(ScanFilter(), timeout: .seconds(5)) { … }
/// let peripheral = try await central.connect(DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(30))
/// ```
public final class BlueZCentral: GATTCentral {
    /// Which of bluetoothd's fast paths to use. Both are on by default; turning one off uses the
    /// plain D-Bus method instead (for tests, benchmarks, and peers where a fast path misbehaves).
    public struct Options: Sendable {
        /// Write commands through a socket from `AcquireWrite` instead of `WriteValue` calls.
        public var acquireWrite = true
        /// Notifications through a socket from `AcquireNotify` instead of `StartNotify` and
        /// `PropertiesChanged` signals.
        public var acquireNotify = true
        /// Connection attempts that fail with `le-connection-abort-by-local` (a common transient
        /// failure) are retried up to this many times in all.
        public var connectAttempts = 3
        /// Without `AcquireWrite`: how many `WriteValue` write commands may await bluetoothd's
        /// reply at once (1 awaits each before the next).
        public var writeValueWindow = 16
        /// How to pair with a device that asks for security (docs/pairing.md): with settings,
        /// the central registers its own pairing agent with bluetoothd; without (the default),
        /// a device that refuses an operation for security fails it.
        public var pairing: PairingSettings?

        public init() {}
    }

    public let linkTime: any LinkTime = RealLinkTime()
    /// The adapter's name, e.g. `hci0`.
    public var adapterName: String { adapter.name }
    /// The adapter's address.
    public var adapterAddress: String { adapter.address }

    let bus: BlueZBus
    let adapter: Adapter
    let options: Options
    let discovery: DiscoverySessions
    /// The agent bluetoothd asks while pairing, when `options.pairing` is set.
    let agent: PairingAgent?

    /// Opens a system-bus connection and picks the adapter: `hciN`, its address, or (`nil`) the
    /// first one. Throws `GATTError.bluetoothUnavailable` when bluetoothd is not running, the
    /// adapter does not exist, or it is powered off.
    public init(adapter: String? = nil, options: Options = Options()) async throws {
        bus = try await BlueZBus.connect()
        let tree: ObjectTree
        do {
            tree = try await bus.managedObjects()
        } catch {
            throw gattError(error, "listing bluetoothd's objects", device: adapter ?? "adapter")
        }
        self.adapter = try Adapter.select(adapter, in: tree)
        self.options = options
        discovery = DiscoverySessions(bus: bus, adapter: self.adapter)
        if let pairing = options.pairing {
            agent = try await PairingAgent.register(on: bus, settings: pairing)
        } else {
            agent = nil
        }
    }

    /// A Bluetooth adapter as bluetoothd lists it.
    public struct AdapterInfo: Sendable, Equatable {
        /// `hciN`.
        public var name: String
        public var address: String
        public var powered: Bool
    }

    /// The adapters bluetoothd has, powered or not. Throws `GATTError.bluetoothUnavailable` when
    /// there is no system bus or bluetoothd is not on it.
    public static func adapters() async throws -> [AdapterInfo] {
        let bus = try await BlueZBus.connect()
        let tree: ObjectTree
        do {
            tree = try await bus.managedObjects()
        } catch {
            throw gattError(error, "listing bluetoothd's objects", device: "adapters")
        }
        return Adapter.all(in: tree).map { adapter in
            AdapterInfo(
                name: adapter.name, address: adapter.address,
                powered: tree.properties(adapter.path, BlueZ.adapterInterface)?["Powered"]?.boolValue == true)
        }
    }

    /// The D-Bus connection's thread, where bluetoothd's replies and notifications arrive.
    public var taskExecutor: (any TaskExecutor)? { bus.connection.taskExecutor }

    public func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error>
    {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.scan(filter, timeout: timeout) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        try await connectPeripheral(device, timeout: timeout)
    }

    /// `connect` with the concrete result type.
    public func connectPeripheral(_ device: DeviceIdentifier, timeout: Duration) async throws
        -> BlueZPeripheral
    {
        let deadline = ContinuousClock.now + timeout
        let path = try await find(device, until: deadline)
        return try await DeviceConnector(central: self, identifier: device, path: path, deadline: deadline)
            .connect()
    }

    /// Makes bluetoothd forget a device: its object, bonding keys and cached GATT database (use it
    /// when a device changed its services and the cache is stale). Disconnects first. Does
    /// nothing when bluetoothd does not know the address.
    public func removeDevice(address: BluetoothAddress) async throws {
        let path = adapter.devicePath(for: address.description)
        do {
            _ = try await bus.call(
                adapter.path, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(path)],
                timeout: .seconds(15))
        } catch let error as DBusError
            where error.name == "org.bluez.Error.DoesNotExist" || error.name == DBusError.Name.unknownObject
        {
            return
        } catch {
            throw gattError(error, "removing \(address) from \(adapter.name)", device: address.description)
        }
    }

    // MARK: - finding a device to connect to

    /// The object path of `device`: known to bluetoothd already (by address), or found by scanning.
    private func find(_ device: DeviceIdentifier, until deadline: ContinuousClock.Instant) async throws
        -> String
    {
        if case .address(let address) = device {
            let path = adapter.devicePath(for: address.description)
            let tree = try await managedObjectsForConnect(device)
            if tree.properties(path, BlueZ.deviceInterface) != nil { return path }
        }
        let found = FoundPath()
        let scanTime = deadline - ContinuousClock.now
        let adapter = self.adapter
        try await scan(ScanFilter(), timeout: scanTime) { advertisement in
            let matches =
                switch device {
                case .address(let address): advertisement.address == address
                case .name(let name): advertisement.name == name
                }
            guard matches, found.set(adapter.devicePath(for: advertisement.address.description)) else {
                return
            }
            // stop scanning: this runs inside the scan's own task
            withUnsafeCurrentTask { $0?.cancel() }
        }
        guard let path = found.value else {
            throw GATTError.connectionFailed(
                device: device.description,
                reason: "not found while scanning on \(adapter.name) for \(scanTime.secondsForPeople) "
                    + "(not advertising, or out of range)")
        }
        return path
    }

    private func managedObjectsForConnect(_ device: DeviceIdentifier) async throws -> ObjectTree {
        do {
            return try await bus.managedObjects()
        } catch {
            throw gattError(error, "looking up \(device)", device: device.description)
        }
    }
}

/// The first device path a scan found.
private final class FoundPath: Sendable {
    private let path = Mutex<String?>(nil)

    var value: String? { path.withLock { $0 } }

    /// Stores `value` unless one is stored already; returns whether it did.
    func set(_ value: String) -> Bool {
        path.withLock { path in
            guard path == nil else { return false }
            path = value
            return true
        }
    }
}
