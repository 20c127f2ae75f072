import DFUSupport

/// A 48-bit device address, printed most significant octet first as BlueZ does.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// The six octets in text order: `octets[5]` is the least significant (last) one.
    public let octets: [UInt8]

    /// `AA:BB:CC:DD:EE:FF` in upper or lower case; nil for any other text.
    public init?(_ text: String) {
        // read as bytes: an inventory of 100,000 devices parses as many addresses
        var text = text  // `withUTF8` makes a bridged string contiguous first
        guard let octets = text.withUTF8(Self.octets) else { return nil }
        self.octets = octets
    }

    /// Six octets from 17 bytes of text: two hex digits each, a colon between.
    private static func octets(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count == 17 else { return nil }
        var octets: [UInt8] = []
        octets.reserveCapacity(6)
        for index in 0..<6 {
            let start = index * 3
            guard index == 5 || text[start + 2] == UInt8(ascii: ":"),
                let high = text[start].hexDigitValue, let low = text[start + 1].hexDigitValue
            else { return nil }
            octets.append(high << 4 | low)
        }
        return octets
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

    /// The address of six octets, most significant first (`0xC0, 0xDE, …` is `C0:DE:…`).
    public init(
        _ first: UInt8, _ second: UInt8, _ third: UInt8, _ fourth: UInt8, _ fifth: UInt8, _ last: UInt8
    ) {
        octets = [first, second, third, fourth, fifth, last]
    }

    public var description: String { octets.hexString(separator: ":", uppercase: true) }
}
