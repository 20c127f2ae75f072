/// A firmware version as nrfutil numbers it: `x.y.z` is x·10000 + y·100 + z (protocol doc §7), so
/// `"2.7.31"` and `20731` are the same version.
public struct DFUFirmwareVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var number: UInt32

    public init(number: UInt32) { self.number = number }

    /// Parses `x.y.z`, `x.y`, `x` (an optional leading `v`, and anything after a space, `-` or
    /// `+` ignored: `"1.2.0-rc1"` is 1.2.0) or a plain integer such as `20731`. `nil` when the
    /// text is not a version, or y or z is 100 or more.
    public init?(_ text: String) {
        var core = Substring(text.trimmingSpaces)
        if core.first == "v" || core.first == "V" { core = core.dropFirst() }
        if let end = core.firstIndex(where: { $0 == " " || $0 == "-" || $0 == "+" }) { core = core[..<end] }
        let fields = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) })
        else { return nil }
        let values = fields.map { UInt32($0) }
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let numbers = values.map { $0! }
        if numbers.count == 1 {
            number = numbers[0]
            return
        }
        guard numbers.dropFirst().allSatisfy({ $0 < 100 }) else { return nil }
        let padded = numbers + Array(repeating: 0, count: 3 - numbers.count)
        let (total, overflow) = padded[0].multipliedReportingOverflow(by: 10000)
        guard !overflow, total <= UInt32.max - 9999 else { return nil }
        number = total + padded[1] * 100 + padded[2]
    }

    /// `x.y.z`.
    public var description: String { "\(number / 10000).\(number / 100 % 100).\(number % 100)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }
}

/// The comparison of the installed firmware with the package, made before anything is sent.
public struct DFUVersionCheck: Sendable, Equatable {
    public enum Decision: String, Sendable {
        /// The package is newer: update.
        case update
        /// The device runs the packaged version or a newer one: nothing to do.
        case skip
        /// The device is up to date, but the user forced the update.
        case forced
        /// A version could not be read or parsed; the update goes on.
        case unknown
        /// Nothing to upload: a slot of the device holds the package's image already, and the
        /// update only activates it (SMP).
        case activate
        /// Nothing to upload: the device runs the package's image on test, and the update only
        /// confirms it (SMP).
        case confirm
    }

    /// The text the device reported, if any.
    public var installed: String?
    /// The package's version as `x.y.z`, if it has one.
    public var package: String?
    public var decision: Decision

    public init(installed: String?, package: String?, decision: Decision) {
        self.installed = installed
        self.package = package
        self.decision = decision
    }

    /// Whether the device runs a newer version than the package (false when either is unknown).
    public var deviceIsNewer: Bool {
        guard let installed = installed.flatMap(DFUFirmwareVersion.init),
            let package = package.flatMap(DFUFirmwareVersion.init)
        else { return false }
        return installed > package
    }

    /// Decides from the two versions; `force` overrides a skip.
    public init(installed: String?, package: DFUFirmwareVersion?, force: Bool) {
        self.installed = installed
        self.package = package?.description
        guard let package, let installedVersion = installed.flatMap(DFUFirmwareVersion.init) else {
            decision = .unknown
            return
        }
        if installedVersion < package {
            decision = .update
        } else {
            decision = force ? .forced : .skip
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\0" || $0 == "\n" || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}
