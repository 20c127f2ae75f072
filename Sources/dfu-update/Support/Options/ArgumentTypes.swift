import ArgumentParser
import FirmwareUpdate
import GATT
import Logging
import NordicDFU

// Option values parsed once, into the types the library takes: a bad value is a usage error
// from ArgumentParser, and nothing is validated or switched on again later.

extension BluetoothUUID: ExpressibleByArgument {
    /// A 4-, 8- or 32-hex-digit UUID, with or without dashes.
    public init?(argument: String) { self.init(argument) }
}

extension DeviceIdentifier: ExpressibleByArgument {
    /// An address (`AA:BB:CC:DD:EE:FF`, either case) or an advertised name.
    public init?(argument: String) {
        guard let identifier = try? Self.parse(argument) else { return nil }
        self = identifier
    }

    /// `text` as a device, or a usage error that names it and the forms `--device` takes (for
    /// `transform:`: ArgumentParser prints no reason for a failed `init?(argument:)`).
    static func argument(_ text: String) throws -> DeviceIdentifier {
        do {
            return try parse(text)
        } catch {
            throw ValidationError(
                "\(error.problem); --device takes an address (AA:BB:CC:DD:EE:FF, either case) or an advertised name"
            )
        }
    }
}

extension DFUFirmwareVersion: ExpressibleByArgument {
    /// `x.y.z` or an integer.
    public init?(argument: String) { self.init(argument) }
}

extension DFUOptions.Nordic.BootloaderLocation: ExpressibleByArgument {
    /// `auto`, `same` or `incremented`.
    public init?(argument: String) {
        switch argument {
        case "auto": self = .automatic
        case "same": self = .sameAddress
        case "incremented": self = .incrementedAddress
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["auto", "same", "incremented"] }

    public var defaultValueDescription: String {
        switch self {
        case .automatic: "auto"
        case .sameAddress: "same"
        case .incrementedAddress: "incremented"
        case .name(let name): name
        }
    }
}

/// A swift-log level, as `--log-level` takes it (`trace` … `critical`).
struct LogLevel: ExpressibleByArgument {
    let level: Logger.Level

    init?(argument: String) {
        guard let level = Logger.Level(rawValue: argument) else { return nil }
        self.level = level
    }

    static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }
}

/// A number of seconds from a hundredth to an hour (`--timeout 2.5`): every duration option of
/// every command is read here.
struct Seconds: ExpressibleByArgument, CustomStringConvertible {
    let value: Double

    /// The shortest duration an option takes: Bluetooth LE's shortest connection interval is
    /// 7.5 ms, so no device answers within less, and `1e-300` would only say "within 0 s" later.
    static let shortest = 0.01

    init(_ value: Double) { self.value = value }

    init?(argument: String) {
        guard let value = Double(argument), value >= Self.shortest, value <= 3600 else { return nil }
        self.init(value)
    }

    /// `text` as seconds, or an error that states the range (for `transform:`).
    static func parse(_ text: String) throws -> Seconds { try parse(text, atLeast: shortest) }

    /// `text` as seconds from `minimum` on, for a duration that less would make useless (a
    /// lease that runs out before it can be renewed); an error that states the range.
    static func parse(_ text: String, atLeast minimum: Double) throws -> Seconds {
        guard let seconds = Seconds(argument: text), seconds.value >= minimum else {
            throw ValidationError(
                "'\(text)' is not a number of seconds from \(Seconds(minimum)) to 3600")
        }
        return seconds
    }

    var duration: Duration { .nanoseconds(Int64((value * 1e9).rounded())) }

    var description: String { value == value.rounded() ? String(Int(value)) : String(value) }
}

extension DFUOptions.SMP.Activation: ExpressibleByArgument {}
