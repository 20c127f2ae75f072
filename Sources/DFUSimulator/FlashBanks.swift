import Crypto
import DFUSupport
import NordicDFU

/// The kinds of image a device holds.
public enum InstalledImageType: String, CaseIterable, Comparable, Hashable, Sendable {
    case softdevice
    case bootloader
    case application

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// An image the device boots or runs.
public struct InstalledImage: Equatable, Sendable {
    /// Bytes.
    public var size: Int
    /// SHA-256 of the image bytes, lower-case hex.
    public var sha256: String
    /// The version its init packet announced (`fw_version` or `application_version`), if any.
    public var version: UInt32?

    init(bytes: ArraySlice<UInt8>, version: UInt32?) {
        size = bytes.count
        sha256 = SHA256.hash(data: bytes).hexString()
        self.version = version
    }
}

/// How a received image splits into the parts the device installs.
struct ImageLayout: Equatable, Sendable {
    var softdevice = 0
    var bootloader = 0
    var application = 0

    var total: Int { softdevice + bootloader + application }
}

/// What the received image must hash to before it may be installed.
enum ExpectedDigest: Equatable, Sendable {
    /// SHA-256 in digest order.
    case sha256([UInt8])
    /// CRC-16/CCITT-FALSE (Legacy 0.5/0.6 init packets).
    case crc16(UInt16)
}

/// The bank received bytes go to. Nothing in it is ever run: only `validated(against:)` turns its
/// content into a `ValidatedImage`, and only a complete image with the expected digest passes.
struct StagingArea: Sendable {
    let layout: ImageLayout
    private(set) var bytes: [UInt8] = []

    init(layout: ImageLayout) {
        self.layout = layout
        bytes.reserveCapacity(layout.total)
    }

    var count: Int { bytes.count }

    mutating func append(_ chunk: ArraySlice<UInt8>) { bytes.append(contentsOf: chunk) }

    /// Drops everything after the first `count` bytes (an object created again).
    mutating func truncate(to count: Int) { bytes.removeSubrange(min(count, bytes.count)...) }

    /// The image, when all of it arrived and it matches `digest`; nil otherwise.
    func validated(against digest: ExpectedDigest, version: UInt32?) -> ValidatedImage? {
        guard bytes.count == layout.total, layout.total > 0 else { return nil }
        switch digest {
        case .sha256(let expected):
            guard Array(SHA256.hash(data: bytes)) == expected else { return nil }
        case .crc16(let expected):
            guard CRC16.checksum(bytes) == expected else { return nil }
        }
        return ValidatedImage(layout: layout, bytes: bytes, version: version)
    }
}

/// A complete image whose digest matched. Only `StagingArea.validated(against:version:)` makes
/// one, so `FlashBanks.activate` cannot be handed a partial or corrupt image.
struct ValidatedImage: Sendable {
    let layout: ImageLayout
    let bytes: [UInt8]
    let version: UInt32?

    fileprivate init(layout: ImageLayout, bytes: [UInt8], version: UInt32?) {
        self.layout = layout
        self.bytes = bytes
        self.version = version
    }
}

/// The images installed on the device, changed only by activating a validated image.
struct FlashBanks: Sendable {
    private(set) var installed: [InstalledImageType: InstalledImage] = [:]
    /// How many times the bootloader activated an image.
    private(set) var activations = 0

    init(factoryApplication: InstalledImage?) {
        installed[.application] = factoryApplication
    }

    var hasApplication: Bool { installed[.application] != nil }

    /// Installs the parts of `image`. A new SoftDevice makes the application unusable (it was
    /// linked against the old one), so the device then waits in its bootloader for an application.
    mutating func activate(_ image: ValidatedImage) {
        let layout = image.layout
        let bytes = image.bytes
        if layout.softdevice > 0 {
            installed[.softdevice] = InstalledImage(bytes: bytes[0..<layout.softdevice], version: nil)
            installed[.application] = nil
        }
        if layout.bootloader > 0 {
            let range = layout.softdevice..<layout.softdevice + layout.bootloader
            installed[.bootloader] = InstalledImage(bytes: bytes[range], version: image.version)
        }
        if layout.application > 0 {
            let start = layout.softdevice + layout.bootloader
            installed[.application] = InstalledImage(
                bytes: bytes[start..<bytes.count], version: image.version)
        }
        activations += 1
    }

    /// Counts an activation the banks do not hold: MCUboot swapping a new image in for good or
    /// on test.
    mutating func countActivation() { activations += 1 }

    /// The FWID in the SoftDevice info structure of `image`'s SoftDevice part (at 0x2000 into the
    /// image, magic 0x51B1E5DB at +4, FWID at +12), if it has one.
    static func softDeviceID(in image: ValidatedImage) -> UInt16? {
        let info = 0x2000
        guard image.layout.softdevice >= info + 14 else { return nil }
        let bytes = image.bytes
        let magic =
            UInt32(bytes[info + 4]) | UInt32(bytes[info + 5]) << 8 | UInt32(bytes[info + 6]) << 16
            | UInt32(bytes[info + 7]) << 24
        guard magic == 0x51B1_E5DB else { return nil }
        return UInt16(bytes[info + 12]) | UInt16(bytes[info + 13]) << 8
    }
}
