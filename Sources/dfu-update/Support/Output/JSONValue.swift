import DFUSupport
import Foundation

/// A JSON value whose objects keep their keys in the order written, so that machine output is
/// stable and reads well. Only what the CLI prints is modelled.
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    /// A duration in seconds, to the millisecond: `7.815`, never the `7.8149999999999995` that
    /// adding a `Double` fraction to the whole seconds can give.
    static func seconds(_ duration: Duration) -> JSONValue {
        .double((duration.seconds * 1000).rounded() / 1000)
    }

    /// Compact, single-line JSON (as JSON Lines needs).
    func serialized() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            // The shortest text that reads back as the same Double: all the precision it has.
            out += value.isFinite ? value.description : "null"
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue {
    /// `.string` or `.null`.
    static func optional(_ string: String?) -> JSONValue { string.map(JSONValue.string) ?? .null }
    /// `.int` or `.null`.
    static func optional<I: BinaryInteger>(_ value: I?) -> JSONValue { value.map { .int(Int($0)) } ?? .null }
}
