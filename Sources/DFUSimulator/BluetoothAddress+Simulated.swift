import GATT

extension BluetoothAddress {
    /// `C0:DE:00:00:00:10`: where a simulated device advertises unless told otherwise.
    public static let simulatedDevice = BluetoothAddress(0xC0, 0xDE, 0x00, 0x00, 0x00, 0x10)
}
