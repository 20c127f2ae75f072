import GATT

/// The security a served characteristic asks of the link, as bluetoothd enforces it from the
/// characteristic's flags (BlueZ's doc/org.bluez.GattCharacteristic.rst; the `-notify` flags set
/// the permissions of its CCC descriptor, so subscribing needs the same). A central that writes
/// on a link without it gets ATT insufficient encryption or authentication, as Zephyr's
/// `MCUMGR_TRANSPORT_BT_PERM_RW_ENCRYPT` / `_RW_AUTHEN` answer.
public enum LocalSecurity: String, Sendable, CaseIterable {
    /// Anyone may write and subscribe.
    case open
    /// An encrypted link: any pairing, Just Works included.
    case encrypt
    /// An encrypted link with an authenticated (MITM-protected) key: passkey entry or numeric
    /// comparison.
    case authenticated

    /// The flags added to a characteristic with `properties`.
    func flags(for properties: CharacteristicProperties) -> [String] {
        let prefix: String
        switch self {
        case .open: return []
        case .encrypt: prefix = "encrypt"
        case .authenticated: prefix = "encrypt-authenticated"
        }
        var flags: [String] = []
        if properties.contains(.read) { flags.append("\(prefix)-read") }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse]) { flags.append("\(prefix)-write") }
        if properties.contains(.notify) { flags.append("\(prefix)-notify") }
        if properties.contains(.indicate) { flags.append("\(prefix)-indicate") }
        return flags
    }
}

extension LocalCharacteristic {
    /// bluetoothd's `Flags` of the characteristic: its properties and its security.
    var flagNames: [String] { properties.flagNames + security.flags(for: properties) }
}
