/// How a user names a device: by its Bluetooth address or by its advertised name.
public enum DeviceIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// `AA:BB:CC:DD:EE:FF`, upper case.
    case address(String)
    case name(String)

    /// An address when `text` has the `XX:XX:XX:XX:XX:XX` form, else a name.
    public init(_ text: String) {
        if let address = BluetoothAddress(text) {
            self = .address(address.description)
        } else {
            self = .name(text)
        }
    }

    public var description: String {
        switch self {
        case .address(let address): address
        case .name(let name): name
        }
    }

    /// Why `text` cannot name a device, nil when it can: it is empty, or shaped like an address
    /// (groups of one or two characters between colons) without being one (`ZZ:00`).
    public static func problem(with text: String) -> String? {
        if text.trimmingCharacters(in: " \t").isEmpty { return "a device name or address must not be empty" }
        guard BluetoothAddress(text) == nil else { return nil }
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        if groups.count > 1, groups.allSatisfy({ $0.count <= 2 }) {
            return "'\(text)' is not a Bluetooth address (six pairs of hex digits, AA:BB:CC:DD:EE:FF)"
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}

/// A 48-bit device address, printed most significant octet first as BlueZ does.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// The six octets in text order: `octets[5]` is the least significant (last) one.
    public let octets: [UInt8]

    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard part.count == 2, let octet = UInt8(part, radix: 16) else { return nil }
            octets.append(octet)
        }
        self.octets = octets
    }

    /// The address a Nordic bootloader advertises at when it has no bond information: the least
    /// significant octet plus one, wrapping without carry (`…:FF` becomes `…:00`).
    public var incremented: BluetoothAddress {
        var next = octets
        next[5] &+= 1
        return BluetoothAddress(octets: next)
    }

    /// The least significant octet minus one, wrapping without borrow: the application's
    /// address of a bootloader that advertises at address + 1 (the inverse of `incremented`).
    public var decremented: BluetoothAddress {
        var previous = octets
        previous[5] &-= 1
        return BluetoothAddress(octets: previous)
    }

    /// The address with the lowest bit of its least significant octet flipped: where nRF Connect
    /// SDK Bare Metal's firmware loader advertises (sdk-nrf-bm `firmware_loader/ble_mcumgr`); its
    /// own inverse.
    public var lowestBitFlipped: BluetoothAddress {
        var flipped = octets
        flipped[5] ^= 1
        return BluetoothAddress(octets: flipped)
    }

    private init(octets: [UInt8]) { self.octets = octets }

    public var description: String {
        octets.map { octet in
            let hex = String(octet, radix: 16, uppercase: true)
            return octet < 0x10 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
