import Crypto

/// The kind of one firmware image of a package, named as in `manifest.json` (and the contract).
public enum DFUImageKind: String, Sendable, CaseIterable, Comparable {
    /// A SoftDevice and a bootloader merged into one image (`sd_bl.bin`): SoftDevice bytes, then
    /// bootloader bytes.
    case softdeviceBootloader = "softdevice_bootloader"
    case softdevice
    case bootloader
    case application

    /// Whether this is a system image (anything but the application).
    public var isSystemImage: Bool { self != .application }

    /// Send order: system images first, the application last.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The three sizes the Legacy DFU "Start DFU" packet carries, in bytes.
public struct DFUImageSizes: Sendable, Equatable {
    public var softdevice: UInt32
    public var bootloader: UInt32
    public var application: UInt32

    public init(softdevice: UInt32, bootloader: UInt32, application: UInt32) {
        self.softdevice = softdevice
        self.bootloader = bootloader
        self.application = application
    }
}

/// One image of a package: the firmware bytes to send, its init packet, and what is known of both.
/// Sending a package means sending its images in order, each in its own DFU run.
public struct DFUImage: Sendable {
    /// What the image holds.
    public let kind: DFUImageKind
    /// Name of the firmware entry in the package (or of the bare firmware file).
    public let binName: String
    /// Name of the init packet entry, or nil when there is none (bare legacy firmware).
    public let datName: String?
    /// The firmware bytes, exactly as they are sent.
    public let firmware: [UInt8]
    /// The init packet bytes, exactly as they are sent.
    public let initPacket: [UInt8]?
    /// The init packet, decoded.
    public let decodedInitPacket: InitPacket?
    /// SoftDevice part size; only for ``DFUImageKind/softdeviceBootloader`` (from the manifest, or
    /// from the init packet when the manifest lacks it).
    public let sdSize: UInt32?
    /// Bootloader part size; only for ``DFUImageKind/softdeviceBootloader``.
    public let blSize: UInt32?
    /// zlib CRC-32 of ``firmware``.
    public let crc32: UInt32
    /// CRC-16/CCITT-FALSE of ``firmware`` (what a Legacy init packet carries).
    public let crc16: UInt16
    /// SHA-256 of ``firmware``, in digest order.
    public let sha256: [UInt8]

    init(
        kind: DFUImageKind, binName: String, datName: String?, firmware: [UInt8], initPacket: [UInt8]?,
        decodedInitPacket: InitPacket?, sdSize: UInt32?, blSize: UInt32?
    ) {
        self.kind = kind
        self.binName = binName
        self.datName = datName
        self.firmware = firmware
        self.initPacket = initPacket
        self.decodedInitPacket = decodedInitPacket
        self.sdSize = sdSize
        self.blSize = blSize
        crc32 = CRC32.checksum(firmware)
        crc16 = CRC16.checksum(firmware)
        sha256 = Array(SHA256.hash(data: firmware))
    }

    /// The sizes for the Legacy DFU "Start DFU" packet: the image size in the slot of its kind,
    /// both parts for a SoftDevice + bootloader image.
    public var sizes: DFUImageSizes {
        let size = UInt32(firmware.count)
        switch kind {
        case .application: return DFUImageSizes(softdevice: 0, bootloader: 0, application: size)
        case .bootloader: return DFUImageSizes(softdevice: 0, bootloader: size, application: 0)
        case .softdevice: return DFUImageSizes(softdevice: size, bootloader: 0, application: 0)
        case .softdeviceBootloader:
            return DFUImageSizes(softdevice: sdSize ?? 0, bootloader: blSize ?? 0, application: 0)
        }
    }

    /// SHA-256 of ``initPacket``, in digest order.
    public var initPacketSHA256: [UInt8]? { initPacket.map { Array(SHA256.hash(data: $0)) } }

    /// Whether the init packet carries a signature.
    public var isSigned: Bool {
        switch decodedInitPacket {
        case .secure(let packet): return packet.signature != nil
        case .legacy(let packet): return packet.signature != nil
        case nil: return false
        }
    }

    /// The firmware version the init packet announces: `fw_version` (Secure) or
    /// `application_version` (Legacy); nil without an init packet or when the field is absent.
    public var firmwareVersion: UInt32? {
        switch decodedInitPacket {
        case .secure(let packet): return packet.presentFields.contains("fw_version") ? packet.fwVersion : nil
        case .legacy(let packet): return packet.applicationVersion
        case nil: return nil
        }
    }
}
