import DBus
import GATT

/// Shares this connection's one discovery session on an adapter among overlapping scans:
/// bluetoothd keeps one session and one filter per client, so the filter is the union of what
/// the running scans want, discovery starts with the first scan and stops with the last.
///
/// Joins and leaves take turns, each done before the next begins: each waits for bluetoothd, and
/// this actor runs other calls meanwhile. Scans that start together (the devices of a fleet
/// jumping into their bootloaders at once) would otherwise each find the others already counted
/// and none would start discovery.
actor DiscoverySessions {
    private let bus: BlueZBus
    private let adapter: Adapter
    private var active: [Int: ScanFilter] = [:]
    private var nextID = 0
    /// The join or leave that runs, or ran last.
    private var lastTurn: Task<Void, any Error>?

    init(bus: BlueZBus, adapter: Adapter) {
        self.bus = bus
        self.adapter = adapter
    }

    /// Starts (or widens) discovery for `filter`; returns the id to pass to `leave`.
    func join(_ filter: ScanFilter) async throws -> Int {
        nextID += 1
        let id = nextID
        try await inTurn { try await self.start(id, filter) }
        return id
    }

    func leave(_ id: Int) async {
        try? await inTurn { await self.stop(id) }
    }

    /// Runs `operation` once every join and leave asked for before it has finished.
    private func inTurn(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        let previous = lastTurn
        let turn = Task {
            _ = await previous?.result
            try await operation()
        }
        lastTurn = turn
        try await turn.value
    }

    private func start(_ id: Int, _ filter: ScanFilter) async throws {
        active[id] = filter
        do {
            try await applyFilter()
            if active.count == 1 {
                _ = try await bus.call(
                    adapter.path, BlueZ.adapterInterface, "StartDiscovery", timeout: .seconds(10))
            }
        } catch {
            active[id] = nil
            // An adapter powering off answers StartDiscovery with errors (InProgress while
            // bluetoothd still lists a session it could not stop) that would hide the cause.
            if await !adapterIsPowered() { throw adapter.poweredOff }
            throw gattError(error, "starting discovery on \(adapter.name)", device: adapter.name)
        }
    }

    /// Whether bluetoothd reports the adapter powered (true when it cannot say).
    private func adapterIsPowered() async -> Bool {
        let powered = try? await bus.property(
            adapter.path, BlueZ.adapterInterface, "Powered", timeout: .seconds(5))
        return powered?.boolValue ?? true
    }

    private func stop(_ id: Int) async {
        guard active.removeValue(forKey: id) != nil else { return }
        if active.isEmpty {
            // best effort: bluetoothd also ends the session when this connection closes
            _ = try? await bus.call(
                adapter.path, BlueZ.adapterInterface, "StopDiscovery", timeout: .seconds(5))
        } else {
            try? await applyFilter()
        }
    }

    private func applyFilter() async throws {
        let filters = Array(active.values)
        // any scan without a UUID list wants every device
        let uuids =
            filters.contains { $0.serviceUUIDs.isEmpty }
            ? [] : Array(Set(filters.flatMap(\.serviceUUIDs).map(\.uuidString))).sorted()
        // An empty Pattern matches every device and makes bluetoothd disregard the advertised
        // discoverable flags. Without it bluetoothd 5.82 treats a filter of only the adapter's own
        // transport (an LE-only controller) as a plain discovery and drops every device that does
        // not advertise as discoverable; 5.66 reported them (docs/bluez-module.md).
        var entries: [(String, DBusValue)] = [("Transport", .string("le")), ("Pattern", .string(""))]
        if !uuids.isEmpty { entries.append(("UUIDs", .stringArray(uuids))) }
        _ = try await bus.call(
            adapter.path, BlueZ.adapterInterface, "SetDiscoveryFilter", [.propertyDictionary(entries)],
            timeout: .seconds(10))
    }
}
