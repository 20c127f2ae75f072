import GATT

/// One event of the kernel's management interface, as the control channel delivers it: event
/// code, controller index and parameter length (each 16-bit little-endian), then the parameters
/// (BlueZ's doc/mgmt-api.txt).
struct ManagementEvent: Equatable {
    var code: UInt16
    var controller: UInt16
    var parameters: [UInt8]

    init(code: UInt16, controller: UInt16, parameters: [UInt8]) {
        (self.code, self.controller, self.parameters) = (code, controller, parameters)
    }

    /// Nil for fewer bytes than the header announces.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 6 else { return nil }
        let length = Int(bytes[4]) | Int(bytes[5]) << 8
        guard bytes.count >= 6 + length else { return nil }
        code = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        controller = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        parameters = Array(bytes[6..<(6 + length)])
    }

    /// Why the kernel reports a link down (the Device Disconnected event's reason).
    enum DisconnectReason: UInt8 {
        case unspecified = 0
        case timeout = 1
        case localHost = 2
        case remote = 3
        /// The encryption failed: the device answered "PIN or key missing" to the key this
        /// host holds, which LE devices give when they lost the bond.
        case authenticationFailure = 4
        case localHostSuspend = 5
    }

    /// The reason of a Device Disconnected event (0x000C: address, address type, reason) for
    /// the link to `address`; nil for any other event or peer, or a reason this code does not know.
    func disconnectReason(of address: BluetoothAddress) -> DisconnectReason? {
        guard code == 0x000C, parameters.count >= 8, Array(parameters[0..<6]) == address.wireOrder else {
            return nil
        }
        return DisconnectReason(rawValue: parameters[7])
    }
}
