import BlueZ
import GATT

/// The bond policy of `flash` (docs/pairing.md): a bond the user had before the run stays; one
/// this run made is removed afterwards unless `--keep-bond`, so that a gateway updating many
/// devices does not fill bluetoothd's and the controller's storage. Only a device named by its
/// address is looked after: a name says nothing of the bond before connecting.
struct BondPolicy {
    let central: BlueZCentral
    let address: BluetoothAddress?
    let keepsNewBond: Bool
    /// Whether bluetoothd held a bond for the device when the run started.
    let hadBond: Bool

    /// Notes the device's bond before the run; with `rePair`, removes it (and bluetoothd's
    /// cache of the device with it) so that the run pairs again.
    init(central: BlueZCentral, target: DeviceIdentifier, options: PairingOptions) async throws {
        self.central = central
        keepsNewBond = options.keepBond
        if case .address(let address) = target {
            self.address = address
            hadBond = try await central.isPaired(address: address)
            if options.rePair { try await central.removeDevice(address: address) }
        } else {
            address = nil
            hadBond = false
        }
    }

    /// After the run: removes a bond it made unless it is to be kept. Returns what it did, for
    /// the log line, or nil when it did nothing.
    func finish() async -> String? {
        guard let address, !hadBond, !keepsNewBond, (try? await central.isPaired(address: address)) == true
        else { return nil }
        do {
            try await central.removeDevice(address: address)
            return "removed the bond this run made with \(address) (--keep-bond keeps it)"
        } catch {
            return "could not remove the bond this run made with \(address): \(error)"
        }
    }
}
