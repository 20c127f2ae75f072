import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Bytes and helpers the simulator tests share, beside the fixture corpus.
extension Fixtures {
    static let uuids = DFUUUIDs()

    /// A fixture file (a missing one fails the test).
    static func file(_ path: String) throws -> URL { try url(path) }

    /// Deterministic pseudo-random image bytes.
    static func image(count: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed &* 2_654_435_761 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
        try DFUPackage(firmware: bytes).images[0].sha256
    }

    /// The 70-byte unsigned init packet of protocol doc §2.12 / §5.2 (pc-nrfutil's
    /// `dfu_test_app_hrm_s130.dat`): application of 20524 bytes, hw 52, sd_req [0x8C], fw 0.
    static let docInitPacket: [UInt8] =
        [
            0x0A, 0x44, 0x08, 0x01, 0x12, 0x40, 0x08, 0x00, 0x10, 0x34, 0x1A, 0x02, 0x8C, 0x01, 0x20, 0x00,
            0x28, 0x00,
        ]
        + [0x30, 0x00, 0x38, 0xAC, 0xA0, 0x01, 0x42, 0x24, 0x08, 0x03, 0x12, 0x20]
        + [0x03, 0x72, 0x61, 0xD3, 0x3B, 0xB5, 0xA8, 0xAE, 0x1B, 0xF0, 0x1A, 0xFE, 0x92, 0xAF, 0xBF, 0xD8]
        + [0x33, 0x41, 0x19, 0xF3, 0xB6, 0x9F, 0xC7, 0x68, 0x48, 0x41, 0x3D, 0xA7, 0x5F, 0x83, 0x03, 0x51]
        + [0x48, 0x00, 0x52, 0x04, 0x08, 0x01, 0x12, 0x00]

    /// Where the 32 hash bytes sit in `docInitPacket`.
    static let docInitPacketHashRange = 30..<62

    /// The doc's init packet with its hash replaced by that of `image` (same size, 20524 bytes).
    static func docInitPacket(for image: [UInt8]) throws -> [UInt8] {
        var packet = docInitPacket
        packet.replaceSubrange(docInitPacketHashRange, with: try sha256(image).reversed())
        return packet
    }

    /// Configuration of a device that accepts the doc's packet: hw 52, SoftDevice 0x8C, app
    /// version 0, command object maximum 256 (as in the trace).
    static func docDevice(kind: SimulatedDeviceKind = .secure, faults: [SimulatedFault] = [], mtu: Int = 23)
        -> SimulatedDeviceConfiguration
    {
        SimulatedDeviceConfiguration(
            kind: kind, firmwareVersion: "0.0.0", softDeviceID: 0x8C, mtu: mtu, faults: faults,
            commandObjectMaximumSize: 256)
    }

    static func hex(_ text: String) -> [UInt8] {
        text.split(separator: " ").map { UInt8($0, radix: 16)! }
    }

    static func le32(_ value: UInt32) -> [UInt8] { value.littleEndianBytes }
}

extension Fixtures {
    /// An unsigned Secure init packet for an application image, laid out as nrfutil writes it
    /// (protocol doc §5.2): hw 52, sd_req [`softDevice`], the image's size and reversed SHA-256.
    static func initPacket(for image: [UInt8], version: UInt32 = 0, softDevice: UInt16 = 0x8C) throws
        -> [UInt8]
    {
        func varint(_ value: UInt32) -> [UInt8] {
            var bytes: [UInt8] = []
            var rest = value
            repeat {
                let low = UInt8(rest & 0x7F)
                rest >>= 7
                bytes.append(rest == 0 ? low : low | 0x80)
            } while rest != 0
            return bytes
        }
        let sdReq = varint(UInt32(softDevice))
        let initCommand =
            [0x08] + varint(version) + [0x10, 0x34, 0x1A, UInt8(sdReq.count)] + sdReq
            + [0x20, 0x00, 0x28, 0x00, 0x30, 0x00, 0x38] + varint(UInt32(image.count))
            + [0x42, 0x24, 0x08, 0x03, 0x12, 0x20] + (try sha256(image)).reversed()
            + [0x48, 0x00, 0x52, 0x04, 0x08, 0x01, 0x12, 0x00]
        let command = [0x08, 0x01, 0x12, UInt8(initCommand.count)] + initCommand
        return [0x0A, UInt8(command.count)] + command
    }
}
