import Foundation
import GATT

/// A local Bluetooth controller as bluetoothd exports it (`/org/bluez/hciN`).
struct Adapter: Sendable {
    var path: String
    var name: String { String(path.split(separator: "/").last ?? "") }
    var address: String

    /// Every adapter bluetoothd exports, in its order.
    static func all(in tree: ObjectTree) -> [Adapter] {
        tree.paths(with: BlueZ.adapterInterface).map { path in
            Adapter(
                path: path,
                address: tree.properties(path, BlueZ.adapterInterface)?["Address"]?.stringValue ?? "")
        }
    }

    /// Picks the adapter the user named (`hciN` or its address), or the first one; checks that
    /// it is powered. Throws `GATTError.bluetoothUnavailable` saying what is missing.
    static func select(_ wanted: String?, in tree: ObjectTree) throws -> Adapter {
        let adapters = all(in: tree)
        guard !adapters.isEmpty else {
            throw GATTError.bluetoothUnavailable("bluetoothd has no Bluetooth adapter")
        }
        let chosen: Adapter
        if let wanted {
            guard
                let match = adapters.first(where: {
                    $0.name == wanted || $0.address.caseInsensitiveCompare(wanted) == .orderedSame
                })
            else {
                let names = adapters.map { "\($0.name) (\($0.address))" }.joined(separator: ", ")
                throw GATTError.bluetoothUnavailable("no adapter \(wanted); available: \(names)")
            }
            chosen = match
        } else {
            chosen = adapters[0]
        }
        guard tree.properties(chosen.path, BlueZ.adapterInterface)?["Powered"]?.boolValue == true else {
            throw chosen.poweredOff
        }
        return chosen
    }

    /// What to say when this adapter turns out to be off.
    var poweredOff: GATTError {
        .bluetoothUnavailable("adapter \(name) is powered off; power it on, e.g. `bluetoothctl power on`")
    }

    /// The object path bluetoothd gives the device with `address` on this adapter.
    func devicePath(for address: String) -> String {
        path + "/dev_" + address.uppercased().replacingOccurrences(of: ":", with: "_")
    }
}
