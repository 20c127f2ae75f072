/// An MCUboot image version, `struct image_version` (MCUboot `image.h`): major, minor,
/// revision and build number.
public struct MCUbootVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var major: UInt8
    public var minor: UInt8
    public var revision: UInt16
    public var build: UInt32

    public init(major: UInt8, minor: UInt8, revision: UInt16, build: UInt32 = 0) {
        self.major = major
        self.minor = minor
        self.revision = revision
        self.build = build
    }

    /// Parses imgtool's form `major[.minor[.revision]][+build]` (also the NCS manifest's
    /// `version_MCUBOOT`) and Zephyr's image list form `major.minor.revision[.build]`.
    public init?(_ text: String) {
        var numbers = text.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
            .map { String($0) }
        guard let version = numbers.first else { return nil }
        var parts = version.split(separator: ".", omittingEmptySubsequences: false).map { String($0) }
        var buildText = numbers.count == 2 ? numbers.removeLast() : nil
        if buildText == nil && parts.count == 4 { buildText = parts.removeLast() }
        guard (1...3).contains(parts.count), parts.allSatisfy(Self.isDecimal) else { return nil }
        guard let major = UInt8(parts[0]),
            let minor = parts.count > 1 ? UInt8(parts[1]) : 0,
            let revision = parts.count > 2 ? UInt16(parts[2]) : 0
        else { return nil }
        var build: UInt32 = 0
        if let buildText {
            guard Self.isDecimal(buildText), let value = UInt32(buildText) else { return nil }
            build = value
        }
        self.init(major: major, minor: minor, revision: revision, build: build)
    }

    private static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// imgtool's form, `1.2.3+4`.
    public var description: String { "\(major).\(minor).\(revision)+\(build)" }

    /// Zephyr's form in the image list: `1.2.3`, or `1.2.3.4` when the build number is not 0.
    public var imageListDescription: String {
        "\(major).\(minor).\(revision)" + (build == 0 ? "" : ".\(build)")
    }

    /// Major, minor, revision, then build number. (Zephyr's `upgrade` check leaves the build
    /// number out unless `CONFIG_MCUMGR_GRP_IMG_VERSION_CMP_USE_BUILD_NUMBER`.)
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.revision, lhs.build) < (rhs.major, rhs.minor, rhs.revision, rhs.build)
    }
}
