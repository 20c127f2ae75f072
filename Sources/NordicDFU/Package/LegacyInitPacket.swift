import DFUSupport

/// A Legacy DFU init packet (nRF5 SDK <= 11): a packed little-endian struct whose tail depends on
/// the manifest's `dfu_version` (docs/nordic-dfu-protocol.md 1.6):
///
/// | dfu_version | after device_type, device_revision, application_version, sd_req |
/// | --- | --- |
/// | 0.5 | CRC-16 of the image |
/// | 0.6 | ext_packet_id 0, CRC-16 |
/// | 0.7 | ext_packet_id 1, image length, SHA-256 of the image |
/// | 0.8 | as 0.7 with ext_packet_id 2, then an ECDSA P-256 signature of all preceding bytes |
public struct LegacyInitPacket: Sendable, Equatable {
    /// The layouts, by `dfu_version`.
    public enum Version: String, Sendable, CaseIterable {
        case v0_5 = "0.5"
        case v0_6 = "0.6"
        case v0_7 = "0.7"
        case v0_8 = "0.8"

        /// The version a manifest's `dfu_version` number names, if it is one of the four.
        public init?(dfuVersion: Double) {
            let tenths = (dfuVersion * 10).rounded()
            guard abs(dfuVersion * 10 - tenths) < 1e-6 else { return nil }
            switch tenths {
            case 5: self = .v0_5
            case 6: self = .v0_6
            case 7: self = .v0_7
            case 8: self = .v0_8
            default: return nil
            }
        }

        /// The number as a manifest writes it.
        public var dfuVersion: Double { Double(rawValue)! }

        /// `ext_packet_id` this layout writes, nil for 0.5 which has none.
        var extPacketID: UInt32? {
            switch self {
            case .v0_5: nil
            case .v0_6: 0
            case .v0_7: 1
            case .v0_8: 2
            }
        }

        /// Bytes after the fixed part and the sd_req list.
        var tailSize: Int {
            switch self {
            case .v0_5: 2
            case .v0_6: 4 + 2
            case .v0_7: 4 + 4 + 32
            case .v0_8: 4 + 4 + 32 + 64
            }
        }
    }

    public let version: Version
    public let deviceType: UInt16
    public let deviceRevision: UInt16
    public let applicationVersion: UInt32
    /// Accepted SoftDevice FWIDs (0xFFFE: any).
    public let softdeviceRequired: [UInt16]
    /// 0.6 and later.
    public let extPacketID: UInt32?
    /// 0.5 and 0.6: CRC-16/CCITT-FALSE of the image.
    public let firmwareCRC16: UInt16?
    /// 0.7 and 0.8.
    public let firmwareLength: UInt32?
    /// 0.7 and 0.8: SHA-256 of the image, in digest order.
    public let firmwareHash: [UInt8]?
    /// 0.8: r then s, each 32 bytes big-endian, over all bytes before it.
    public let signature: [UInt8]?

    /// Decodes `dat` with the layout of `version`; its length must be exactly that layout's.
    init(decoding dat: [UInt8], version: Version) throws(InitPacketProblem) {
        // lengths are checked before each read: the reads cannot run out
        var reader = ByteReader(dat)
        guard dat.count >= 10 else {
            throw .invalid(
                "\(dat.count) bytes, shorter than the 10-byte fixed part of dfu_version \(version.rawValue)")
        }
        deviceType = reader.readUInt16()!
        deviceRevision = reader.readUInt16()!
        applicationVersion = reader.readUInt32()!
        let count = Int(reader.readUInt16()!)
        let expected = 10 + 2 * count + version.tailSize
        guard dat.count == expected else {
            throw .invalid(
                "\(dat.count) bytes, but dfu_version \(version.rawValue) with \(count) sd_req entries needs \(expected)"
            )
        }
        softdeviceRequired = (0..<count).map { _ in reader.readUInt16()! }
        self.version = version
        extPacketID = version.extPacketID.map { _ in reader.readUInt32()! }
        if let extPacketID, extPacketID != version.extPacketID {
            throw .invalid(
                "ext_packet_id is \(extPacketID), but dfu_version \(version.rawValue) writes \(version.extPacketID!)"
            )
        }
        switch version {
        case .v0_5, .v0_6:
            firmwareCRC16 = reader.readUInt16()!
            (firmwareLength, firmwareHash, signature) = (nil, nil, nil)
        case .v0_7, .v0_8:
            firmwareCRC16 = nil
            firmwareLength = reader.readUInt32()!
            firmwareHash = reader.readBytes(32)!
            signature = version == .v0_8 ? reader.readBytes(64)! : nil
        }
    }

    /// Picks the layout from the length alone, for a bare `.dat` with no manifest to say.
    init(inferringVersionOf dat: [UInt8]) throws(InitPacketProblem) {
        guard dat.count >= 10 else {
            throw .invalid("\(dat.count) bytes, too short for a legacy init packet")
        }
        let count = Int(dat[8]) | Int(dat[9]) << 8
        let tail = dat.count - 10 - 2 * count
        guard let version = Version.allCases.first(where: { $0.tailSize == tail }) else {
            throw .invalid("\(dat.count) bytes fit no legacy init packet layout (0.5 to 0.8)")
        }
        try self.init(decoding: dat, version: version)
    }

    /// The bytes a 0.8 signature covers: everything before it.
    func signedBytes(of dat: [UInt8]) -> ArraySlice<UInt8> { dat[..<(dat.count - 64)] }

    /// Checks the CRC-16 (0.5, 0.6) or length and SHA-256 (0.7, 0.8) against `firmware`.
    func check(against firmware: [UInt8], crc16: UInt16, sha256: [UInt8]) throws(InitPacketProblem) {
        if let firmwareCRC16, firmwareCRC16 != crc16 {
            throw .mismatch(
                "the init packet's CRC-16 is 0x\(hex(firmwareCRC16)), but the image's is 0x\(hex(crc16))")
        }
        if let firmwareLength, firmwareLength != UInt32(firmware.count) {
            throw .mismatch(
                "the init packet's length is \(firmwareLength), but the image is \(firmware.count) bytes")
        }
        if let firmwareHash, firmwareHash != sha256 {
            throw .mismatch("the init packet's SHA-256 does not match the image")
        }
    }

    private func hex(_ value: UInt16) -> String { String(value, radix: 16) }
}
