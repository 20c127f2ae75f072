import DBus
import GATT

/// Shares this connection's one discovery session on an adapter among overlapping scans:
/// bluetoothd keeps one session and one filter per client, so the filter is the union of what
/// the running scans want, discovery starts with the first scan and stops with the last.
actor DiscoverySessions {
    private let bus: BlueZBus
    private let adapter: Adapter
    private var active: [Int: ScanFilter] = [:]
    private var nextID = 0

    init(bus: BlueZBus, adapter: Adapter) {
        self.bus = bus
        self.adapter = adapter
    }

    /// Starts (or widens) discovery for `filter`; returns the id to pass to `leave`.
    func join(_ filter: ScanFilter) async throws -> Int {
        nextID += 1
        let id = nextID
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
        return id
    }

    /// Whether bluetoothd reports the adapter powered (true when it cannot say).
    private func adapterIsPowered() async -> Bool {
        let powered = try? await bus.property(
            adapter.path, BlueZ.adapterInterface, "Powered", timeout: .seconds(5))
        return powered?.boolValue ?? true
    }

    func leave(_ id: Int) async {
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
        var entries: [(String, DBusValue)] = [("Transport", .string("le"))]
        if !uuids.isEmpty { entries.append(("UUIDs", .stringArray(uuids))) }
        _ = try await bus.call(
            adapter.path, BlueZ.adapterInterface, "SetDiscoveryFilter", [.propertyDictionary(entries)],
            timeout: .seconds(10))
    }
}
