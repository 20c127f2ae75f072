import DFUSupport
import Foundation
import GATT

/// A socket of the kernel's Bluetooth subsystem (`AF_BLUETOOTH`, `BTPROTO_HCI`): the raw HCI
/// channel of one controller, or the management channel (what `hcitool cmd` and `btmgmt` use).
/// Both need root (CAP_NET_RAW / CAP_NET_ADMIN).
final class KernelSocket {
    private static let addressFamily: Int32 = 31  // AF_BLUETOOTH
    private static let hciProtocol: Int32 = 1  // BTPROTO_HCI
    private static let noDevice: UInt16 = 0xFFFF  // HCI_DEV_NONE

    enum Channel: UInt16 {
        case raw = 0  // HCI_CHANNEL_RAW
        case control = 3  // HCI_CHANNEL_CONTROL (mgmt)
    }

    private let descriptor: Int32

    /// Opens the raw channel of controller `index` (`hciN`), or the management channel (index nil).
    init(_ channel: Channel, controller index: UInt16? = nil) throws {
        let fd = socket(
            Self.addressFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.hciProtocol)
        guard fd >= 0 else { throw Self.failure("open a Bluetooth socket") }
        // struct sockaddr_hci { sa_family_t family; unsigned short dev; unsigned short channel; }
        var address: [UInt16] = [UInt16(Self.addressFamily), index ?? Self.noDevice, channel.rawValue]
        let bound = address.withUnsafeMutableBytes { raw in
            bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard bound == 0 else {
            let error = Self.failure("bind the Bluetooth \(channel) channel")
            close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends one HCI command (raw channel).
    func send(_ command: HCICommand) throws {
        try send(command.packet)
    }

    /// Sends one management command and waits (at most `timeout`) for its status; throws unless
    /// it succeeded (management channel).
    func management(_ opCode: UInt16, controller index: UInt16, _ parameters: [UInt8], timeout: Duration)
        throws
    {
        try send(
            Self.littleEndian(opCode) + Self.littleEndian(index) + Self.littleEndian(UInt16(parameters.count))
                + parameters)
        let deadline = ContinuousClock.now + timeout
        while let event = nextEvent(until: deadline) {
            // Command Complete (0x0001) or Command Status (0x0002): [opcode, status, …]
            let parameters = event.parameters
            guard event.code == 1 || event.code == 2, parameters.count >= 3,
                UInt16(parameters[0]) | UInt16(parameters[1]) << 8 == opCode
            else { continue }
            guard parameters[2] == 0 else {
                throw GATTError.operationFailed(
                    operation: "management command 0x\(String(opCode, radix: 16))",
                    reason: "the kernel answered status 0x\(String(parameters[2], radix: 16))")
            }
            return
        }
        throw GATTError.timeout(
            operation: "management command 0x\(String(opCode, radix: 16))", seconds: timeout.seconds)
    }

    /// The next management event (management channel), or nil when none came before `deadline`.
    func nextEvent(until deadline: ContinuousClock.Instant) -> ManagementEvent? {
        var buffer = [UInt8](repeating: 0, count: 512)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, (deadline - ContinuousClock.now).seconds * 1000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0, let event = ManagementEvent(Array(buffer.prefix(count))) else { continue }
            return event
        }
        return nil
    }

    private func send(_ packet: [UInt8]) throws {
        let written = packet.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == packet.count else { throw Self.failure("write to the Bluetooth socket") }
    }

    static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    private static func failure(_ what: String) -> GATTError {
        .operationFailed(operation: what, reason: String(cString: strerror(errno)) + " (needs root)")
    }
}

extension BluetoothAddress {
    /// The six octets as HCI and mgmt carry them: least significant first.
    var wireOrder: [UInt8] { octets.reversed() }
}
