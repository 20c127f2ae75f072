import DFUSupport
import GATT
import NordicDFU

/// One scan per adapter for every device of the fleet, instead of one per device.
enum FleetDiscovery {
    /// A device to look for: the identifiers it may advertise under, in order of preference, and
    /// the adapter it must be seen on (nil: any).
    struct Target: Sendable {
        var identifiers: [DeviceIdentifier]
        var adapter: Int?
    }

    /// A device seen during discovery, and where.
    struct Sighting: Sendable {
        var advertisement: Advertisement
        var adapter: Int
        var central: Int
        /// The index in the target's identifiers it was seen under.
        var rank: Int
    }

    /// Scans every central of every adapter at once, until each target was seen or `timeout`
    /// (real time) passed. Returns the best sighting per target index.
    static func discover(_ targets: [Target], adapters: [FleetAdapter], timeout: Duration) async -> [Int:
        Sighting]
    {
        var byIdentifier: [DeviceIdentifier: [(target: Int, rank: Int)]] = [:]
        for (index, target) in targets.enumerated() {
            for (rank, identifier) in target.identifiers.enumerated() {
                byIdentifier[identifier, default: []].append((index, rank))
            }
        }
        let lookup = byIdentifier
        let found = Locked([Int: Sighting]())
        await withTaskGroup(of: Void.self) { group in
            for (adapterIndex, adapter) in adapters.enumerated() {
                for (centralIndex, central) in adapter.centrals.enumerated() {
                    group.addTask {
                        do {
                            for try await advertisement in central.scan(ScanFilter(), timeout: timeout) {
                                var identifiers: [DeviceIdentifier] = [.address(advertisement.address)]
                                if let name = advertisement.name { identifiers.append(.name(name)) }
                                let complete = found.withLock { found in
                                    for (target, rank) in identifiers.flatMap({ lookup[$0] ?? [] })
                                    where targets[target].adapter.map({ $0 == adapterIndex }) ?? true
                                        && rank < (found[target]?.rank ?? .max)
                                    {
                                        found[target] = Sighting(
                                            advertisement: advertisement, adapter: adapterIndex,
                                            central: centralIndex, rank: rank)
                                    }
                                    return found.count == targets.count
                                }
                                if complete { break }
                            }
                        } catch {
                            // A scan that fails finds nothing; the devices only it could see are
                            // reported as not found.
                        }
                    }
                }
            }
            // Stop the other scans as soon as every device was seen.
            while await group.next() != nil {
                if found.withLock({ $0.count == targets.count }) { group.cancelAll() }
            }
        }
        return found.withLock { $0 }
    }
}
