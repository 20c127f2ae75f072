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
        guard !adapters.isEmpty else { return Sighting(simulated: simulatedIdentifiers, heardOn: [:]) }
        let heard = await withTaskGroup(of: (adapter: String, identifiers: [DeviceIdentifier]).self) {
            group in
            for adapter in adapters {
                for central in adapter.centrals {
                    group.addTask { (adapter.name, await Self.hear(central, within: window)) }
                }
            }
            return await group.reduce(into: [DeviceIdentifier: Set<String>]()) { heardOn, heard in
                for identifier in heard.identifiers { heardOn[identifier, default: []].insert(heard.adapter) }
            }
        }
        return Sighting(simulated: simulatedIdentifiers, heardOn: heard)
    }

    /// What one scan of `central` hears within `window`: each address, the address below it,
    /// and each name.
    private static func hear(_ central: any GATTCentral, within window: Duration) async -> [DeviceIdentifier]
    {
        var identifiers: [DeviceIdentifier] = []
        do {
            for try await advertisement in central.scan(ScanFilter(), timeout: window) {
                identifiers.append(.address(advertisement.address))
                identifiers.append(.address(advertisement.address.decremented))
                if let name = advertisement.name { identifiers.append(.name(name)) }
            }
        } catch {
            // An adapter that cannot scan hears nothing this time.
        }
        return identifiers
    }
}

/// The identifiers one look of a gateway saw, in two parts: the simulated devices, the same at
/// every look (so the loop handles them once, not at each wake: issue 39), and what the
/// adapters heard this time.
struct Sighting: Sendable {
    let simulated: Set<DeviceIdentifier>
    /// Heard by the adapters, none of them simulated.
    let heard: Set<DeviceIdentifier>
    /// The names of the adapters that heard each of `heard`.
    private let heardOn: [DeviceIdentifier: Set<String>]

    init(simulated: Set<DeviceIdentifier>, heardOn: [DeviceIdentifier: Set<String>]) {
        self.simulated = simulated
        // filtered: the walk follows what was heard, not the simulated devices
        self.heardOn = heardOn.filter { !simulated.contains($0.key) }
        heard = Set(self.heardOn.keys)
    }

    /// Whether the device was seen, and heard by `adapter` when one is named (a simulated
    /// device is on an adapter of its own, whatever its entry names).
    func contains(_ identifier: DeviceIdentifier, on adapter: String?) -> Bool {
        guard let adapter, !simulated.contains(identifier) else { return contains(identifier) }
        return heardOn[identifier]?.contains(adapter) == true
    }

    var count: Int { simulated.count + heard.count }

    func contains(_ identifier: DeviceIdentifier) -> Bool {
        simulated.contains(identifier) || heard.contains(identifier)
    }
}
