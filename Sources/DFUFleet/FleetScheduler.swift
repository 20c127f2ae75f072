import NordicDFU

/// Starts work items as slots free up, so that no more than `concurrency` run at once overall
/// and no more than an adapter's capacity run on that adapter. Items run in order, except that
/// one waiting for a full adapter lets those behind it for other adapters go first.
struct FleetScheduler: Sendable {
    let concurrency: Int
    /// The most items at once per adapter index.
    let capacities: [Int]

    /// Runs `body` for the items; asks `mayStart` of the item about to start (and stops
    /// starting until a running item ends when it says no, for good when the task is
    /// cancelled). Returns the items never started.
    func run<Item: Sendable>(
        _ items: [Item], adapter: (Item) -> Int, mayStart: (Item) async -> Bool = { _ in true },
        _ body: @escaping @Sendable (Item) async -> Void
    ) async -> [Item] {
        var pending = items
        var active = 0
        var activeOn = [Int](repeating: 0, count: capacities.count)
        await withTaskGroup(of: Int.self) { group in
            while true {
                var index = 0
                while index < pending.count, active < max(1, concurrency), !Task.isCancelled {
                    let adapterIndex = adapter(pending[index])
                    guard activeOn[adapterIndex] < capacities[adapterIndex] else {
                        index += 1
                        continue
                    }
                    guard await mayStart(pending[index]) else { break }
                    let item = pending.remove(at: index)
                    active += 1
                    activeOn[adapterIndex] += 1
                    group.addTask {
                        await body(item)
                        return adapterIndex
                    }
                }
                guard let finished = await group.next() else { break }
                active -= 1
                activeOn[finished] -= 1
            }
        }
        return pending
    }
}
