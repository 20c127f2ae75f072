import ArgumentParser
import DFUSimulator
import GATT
import MCUmgr
import NordicDFU

// The values of `--simulate` and the `--sim-*` options, read from their command-line spelling
// (docs/cli-contract.md, "Simulated devices"). The simulator library itself takes typed values only.

extension SimulatedDeviceKind: ExpressibleByArgument {}

extension MCUbootHashAlgorithm: ExpressibleByArgument {
    /// `sha256`, `sha384` or `sha512`, as imgtool's `--sha` and the inventory's `image_hash` name them.
    public init?(argument: String) {
        guard let algorithm = Self.allCases.first(where: { $0.argument == argument }) else { return nil }
        self = algorithm
    }

    /// The name `--sim-image-hash` takes.
    public var argument: String { rawValue.lowercased().replacingOccurrences(of: "-", with: "") }

    public static var allValueStrings: [String] { allCases.map(\.argument) }
}

extension MCUbootMode: ExpressibleByArgument {
    /// A mode as its name with dashes (`swap-using-move`, `unknown` for −1) or its number.
    public init?(argument: String) { self.init(name: argument) }
}

extension SimulatedFault: ExpressibleByArgument {
    /// Reads `disconnect-at=BYTES`, `drop-notification=N`, `crc-error=N`, `drop-final-answer=N`,
    /// `reject-connect=K`, `slow-flash=MS` or `revert-after-test`; nil for anything else (``SimulatedFault/problem(with:)`` says why).
    public init?(argument: String) {
        guard case .success(let fault) = Self.read(argument) else { return nil }
        self = fault
    }

    /// Why `spec` is not a fault, naming what is accepted; nil when it is one.
    public static func problem(with spec: String) -> String? {
        if case .failure(let message) = read(spec) { return message.description }
        return nil
    }

    /// The fault names `--sim-fault` accepts.
    public static let names = [
        "disconnect-at", "drop-notification", "crc-error", "drop-final-answer", "reject-connect",
        "slow-flash", "revert-after-test",
    ]

    /// The forms `--sim-fault` accepts, for help texts.
    public static let forms =
        "disconnect-at=BYTES|drop-notification=N|crc-error=N|drop-final-answer=N|reject-connect=K|slow-flash=MS|revert-after-test"

    private static func read(_ spec: String) -> Result<SimulatedFault, SimulatorConfigurationError> {
        if spec == "revert-after-test" { return .success(.revertAfterTest) }
        let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let value = Int(parts[1]) else {
            return .failure(
                .init("fault '\(spec)' is not NAME=NUMBER; use one of \(names.joined(separator: ", "))"))
        }
        let minimum = parts[0] == "disconnect-at" || parts[0] == "slow-flash" ? 0 : 1
        guard value >= minimum else {
            return .failure(.init("fault '\(spec)': the number must be at least \(minimum)"))
        }
        switch parts[0] {
        case "disconnect-at": return .success(.disconnectAt(bytes: value))
        case "drop-notification": return .success(.dropNotification(value))
        case "crc-error": return .success(.crcError(value))
        case "drop-final-answer": return .success(.dropFinalAnswer(value))
        case "reject-connect": return .success(.rejectConnect(value))
        case "slow-flash": return .success(.slowFlash(.milliseconds(value)))
        default:
            return .failure(.init("unknown fault '\(parts[0])'; use one of \(names.joined(separator: ", "))"))
        }
    }
}

extension LegacyDFUVersion: ExpressibleByArgument {
    /// Reads `--sim-dfu-version`: `0.5`, `0.6`, `0.7` or `0.8`.
    public init?(argument: String) {
        let parts = argument.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = UInt8(parts[0]), let minor = UInt8(parts[1]), major == 0,
            (5...8).contains(minor)
        else { return nil }
        self.init(major: major, minor: minor)
    }

    public static var allValueStrings: [String] { ["0.5", "0.6", "0.7", "0.8"] }
}

/// An unsigned number written in decimal or as `0x` hexadecimal (`--sim-hw-version 52`,
/// `--sim-sd-id 0xB6`).
public struct NumberArgument<Value: FixedWidthInteger & Sendable>: ExpressibleByArgument, Sendable {
    public var value: Value

    public init(_ value: Value) { self.value = value }

    public init?(argument: String) {
        let lower = argument.lowercased()
        guard let value = lower.hasPrefix("0x") ? Value(lower.dropFirst(2), radix: 16) : Value(lower) else {
            return nil
        }
        self.value = value
    }
}

extension NumberArgument {
    /// `text` read as `init(argument:)` reads it, for `transform:`: sizes, which imgtool and
    /// Zephyr's partitions write in hex; the error names the forms accepted.
    public static func parse(_ text: String) throws -> Value {
        guard let number = NumberArgument(argument: text) else {
            throw ValidationError("'\(text)' is not a whole number, decimal or 0x hex")
        }
        return number.value
    }
}
