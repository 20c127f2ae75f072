import GATT

/// An HCI command as the raw channel carries it (Core specification, Vol 4 Part E §5.4.1): the
/// LE controller commands the static-address advertiser sends (§7.8), as typed values.
struct HCICommand: Equatable, Sendable {
    /// OGF 0x08, the LE controller commands.
    static let leGroup: UInt16 = 0x08

    let group: UInt16
    let command: UInt16
    let parameters: [UInt8]

    /// The packet: type 0x01 (command), the opcode (OGF << 10 | OCF) little-endian, the
    /// parameters' length, the parameters.
    var packet: [UInt8] {
        let opCode = group << 10 | command
        return [0x01, UInt8(opCode & 0xFF), UInt8(opCode >> 8), UInt8(parameters.count)] + parameters
    }

    /// LE Set Advertising Enable (OCF 0x000A).
    static func leSetAdvertisingEnable(_ enabled: Bool) -> HCICommand {
        HCICommand(group: leGroup, command: 0x000A, parameters: [enabled ? 0x01 : 0x00])
    }

    /// LE Set Random Address (OCF 0x0005): the address advertising with a random own address uses.
    static func leSetRandomAddress(_ address: BluetoothAddress) -> HCICommand {
        HCICommand(group: leGroup, command: 0x0005, parameters: address.wireOrder)
    }

    /// LE Set Advertising Parameters (OCF 0x0006): connectable undirected advertising (ADV_IND)
    /// from the random address, every `interval` (units of 0.625 ms), on all three channels, any
    /// central allowed.
    static func leSetAdvertisingParameters(interval: UInt16) -> HCICommand {
        let interval = KernelSocket.littleEndian(interval)
        let type: UInt8 = 0x00
        let ownAddressRandom: UInt8 = 0x01
        let peer = [UInt8](repeating: 0, count: 7)  // peer address type and address: none
        let allChannels: UInt8 = 0x07
        let anyCentral: UInt8 = 0x00
        return HCICommand(
            group: leGroup, command: 0x0006,
            parameters: interval + interval + [type, ownAddressRandom] + peer + [allChannels, anyCentral])
    }

    /// LE Set Advertising Data (OCF 0x0008): `data`, at most 31 bytes, padded with zeros.
    static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
        let data = Array(data.prefix(31))
        return HCICommand(
            group: leGroup, command: 0x0008,
            parameters: [UInt8(data.count)] + data + [UInt8](repeating: 0, count: 31 - data.count))
    }
}
