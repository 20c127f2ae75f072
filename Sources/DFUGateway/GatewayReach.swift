import DFUFleet
import GATT
import NordicDFU

/// The devices a gateway can reach: simulated devices, each on an adapter of its own, and the
/// Bluetooth adapters it scans for the rest.
public struct GatewayReach: Sendable {
    /// Simulated devices by the identifier they are named by.
    let simulated: [DeviceIdentifier: FleetAdapter]
    /// Their identifiers, collected once: every look sees all of them.
    let simulatedIdentifiers: Set<DeviceIdentifier>
    let adapters: [FleetAdapter]

    /// `simulated`: each simulated device's identifier and the adapter of its own central.
    public init(simulated: [(device: DeviceIdentifier, adapter: FleetAdapter)], adapters: [FleetAdapter]) {
        self.simulated = Dictionary(simulated, uniquingKeysWith: { first, _ in first })
        self.simulatedIdentifiers = Set(self.simulated.keys)
        self.adapters = adapters
    }

    /// The adapters a device's update may use: its simulated one, else the Bluetooth adapters.
    func adapters(for device: DeviceIdentifier) -> [FleetAdapter] {
        simulated[device].map { [$0] } ?? adapters
    }

    func isSimulated(_ device: DeviceIdentifier) -> Bool { simulated[device] != nil }

    /// What is seen now: every simulated device, and what the Bluetooth adapters hear within
    /// `window` (an address is also taken for the one below it, where an application whose
    /// update was interrupted waits in its bootloader; protocol doc §0.4).
    func seen(within window: Duration) async -> Sighting {
        guard !adapters.isEmpty else { return Sighting(simulated: simulatedIdentifiers, heard: []) }
        let heard = await withTaskGroup(of: [DeviceIdentifier].self) { group in
            for central in adapters.flatMap(\.centrals) {
                group.addTask {
                    var identifiers: [DeviceIdentifier] = []
                    do {
                        for try await advertisement in central.scan(ScanFilter(), timeout: window) {
                            identifiers.append(.address(advertisement.address))
                            identifiers.append(.address(advertisement.address.decremented))
                            if let name = advertisement.name { identifiers.append(.name(name)) }
                        }
                    } catch {
                        // An adapter that cannot scan sees nothing this time.
                    }
                    return identifiers
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        return Sighting(simulated: simulatedIdentifiers, heard: Set(heard))
    }
}

/// The identifiers one look of a gateway saw, in two parts: the simulated devices, the same at
/// every look (so the loop handles them once, not at each wake: issue 39), and what the
/// adapters heard this time.
struct Sighting: Sendable {
    let simulated: Set<DeviceIdentifier>
    /// Heard by the adapters, none of them simulated.
    let heard: Set<DeviceIdentifier>

    init(simulated: Set<DeviceIdentifier>, heard: Set<DeviceIdentifier>) {
        self.simulated = simulated
        // filtered: the walk follows what was heard, not the simulated devices
        self.heard = heard.filter { !simulated.contains($0) }
    }

    var count: Int { simulated.count + heard.count }

    func contains(_ identifier: DeviceIdentifier) -> Bool {
        simulated.contains(identifier) || heard.contains(identifier)
    }
}
