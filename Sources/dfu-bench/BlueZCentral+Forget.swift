import BlueZ
import GATT

extension BlueZCentral {
    /// `removeDevice(address:)` for an address as dfu-sim printed it, errors ignored: the
    /// benchmarks clean up after a run and go on.
    func forget(_ printed: String) async {
        guard let address = BluetoothAddress(printed) else { return }
        try? await removeDevice(address: address)
    }
}
