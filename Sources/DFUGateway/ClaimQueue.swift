/// Of one rollout, the devices a gateway has found with no result as far as it knows, in the
/// order it names them in claims. Removing a device or moving it to the end costs the same
/// whatever the queue's length, so that a device's end or a short claim does not walk every
/// device the gateway reaches (issue 39): the entry left behind is skipped when the queue is
/// walked, and the entries are compacted once most of them are such.
struct ClaimQueue: Sendable {
    private var entries: [String] = []
    /// Each queued device's place in `entries`; an entry at any other place was left behind.
    private var places: [String: Int] = [:]
    /// Every entry before it was left behind.
    private var front = 0

    var count: Int { places.count }

    func contains(_ device: String) -> Bool { places[device] != nil }

    /// Queues the devices not queued yet, at the end, in their order.
    mutating func append(_ devices: some Sequence<String>) {
        for device in devices where places[device] == nil { place(device) }
    }

    mutating func remove(_ device: String) {
        guard places.removeValue(forKey: device) != nil else { return }
        compactWhenSparse()
    }

    /// Moves the queued ones of `devices` to the end, in their order.
    mutating func moveToEnd(_ devices: some Sequence<String>) {
        for device in devices where places[device] != nil { place(device) }
        compactWhenSparse()
    }

    /// The first `limit` queued devices that `include` takes, in order: the walk goes as far
    /// as it must to find them, no further.
    mutating func first(_ limit: Int, where include: (String) -> Bool) -> [String] {
        while front < entries.count, places[entries[front]] != front { front += 1 }
        var found: [String] = []
        var index = front
        while found.count < limit, index < entries.count {
            let device = entries[index]
            if places[device] == index, include(device) { found.append(device) }
            index += 1
        }
        return found
    }

    private mutating func place(_ device: String) {
        places[device] = entries.count
        entries.append(device)
    }

    /// Drops the entries left behind once they outnumber the queued devices (and a few more):
    /// a walk over all entries, paid for by the removals and moves since the last one.
    private mutating func compactWhenSparse() {
        guard entries.count > 2 * places.count + 64 else { return }
        let queued = entries[front...].indices.filter { places[entries[$0]] == $0 }.map { entries[$0] }
        entries = []
        front = 0
        for device in queued { place(device) }
    }
}
