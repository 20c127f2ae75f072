import GATT

/// The GATT service and characteristic SMP runs over (Zephyr `smp_bt.c`): requests are written
/// to the characteristic without response, answers come back as its notifications.
public enum SMPUUIDs {
    public static let service = BluetoothUUID("8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!
    public static let characteristic = BluetoothUUID("DA2E7828-FBCE-4E01-AE9E-261174997C48")!

    /// The SMP characteristic among `services`; nil when the device has none.
    public static func characteristic(in services: [GATTService]) -> (any GATTCharacteristic)? {
        services.first { $0.uuid == service }?.characteristic(characteristic)
    }
}
