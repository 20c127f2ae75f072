import Foundation
import NordicDFU

/// A JSON value of an inventory. Inventories are read strictly (docs/fleet.md, "Inventory"): a
/// member the reader does not know, or a value of the wrong type, is an error that names where
/// it is, so that a typo can never widen what an entry or a rule means.
enum InventoryJSON: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([InventoryJSON])
    case object([String: InventoryJSON])

    init(from decoder: any Decoder) throws {
        // Each kind that does not match costs a thrown error: the kinds an inventory holds most
        // (strings, then the devices' objects) are tried first.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: InventoryJSON].self) {
            self = .object(value)
        } else if let value = try? container.decode([InventoryJSON].self) {
            self = .array(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }

    /// Reads `bytes`, which must be exactly one JSON text (no trailing commas, no member named
    /// twice); a syntax error says its line and column.
    static func read(_ bytes: [UInt8]) throws(FleetInventoryError) -> InventoryJSON {
        do throws(JSONSyntax.Invalid) {
            try JSONSyntax.validate(bytes, rejectingDuplicateKeys: true)
        } catch {
            throw FleetInventoryError("not valid JSON: \(error.located(in: bytes))")
        }
        do {
            return try JSONDecoder().decode(InventoryJSON.self, from: Data(bytes))
        } catch {
            throw FleetInventoryError(
                "a value cannot be read (a number out of range, or a broken \\u escape)")
        }
    }

    var isObject: Bool {
        if case .object = self { true } else { false }
    }

    /// What the value is, for messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// One object of an inventory with the members it may have; every read names `place`
/// (`defaults`, `rule 2`, `device 3 (Thermo-7)`) in its error.
struct InventoryObject {
    /// How the inventory's top-level object is named in messages.
    static let rootPlace = "the inventory"
    let place: String
    private let members: [String: InventoryJSON]

    /// `value` as an object whose members are all among `allowed`.
    init(_ value: InventoryJSON, at place: String, allowed: [String]) throws(FleetInventoryError) {
        guard case .object(let members) = value else {
            throw FleetInventoryError("\(place) must be an object, not \(value.kind)")
        }
        for key in members.keys.sorted() where !allowed.contains(key) {
            try Self.refuseInlineSecret(key, at: place)
            let hint = Self.closest(to: key, among: allowed).map { " (did you mean '\($0)'?)" } ?? ""
            throw FleetInventoryError(
                "\(place): unknown key '\(key)'\(hint); it takes \(allowed.joined(separator: ", "))")
        }
        self.place = place
        self.members = members
    }

    /// A non-empty string; nil when absent or null.
    func string(_ key: String) throws(FleetInventoryError) -> String? {
        switch members[key] {
        case nil, .null: return nil
        case .string(let text):
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw FleetInventoryError("\(place): \(key) is empty")
            }
            return text
        case let other?: throw wrongType(key, expected: "a string", got: other)
        }
    }

    func bool(_ key: String) throws(FleetInventoryError) -> Bool? {
        switch members[key] {
        case nil, .null: return nil
        case .bool(let value): return value
        case let other?: throw wrongType(key, expected: "true or false", got: other)
        }
    }

    /// A whole number in `range`.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(FleetInventoryError) -> Int? {
        switch members[key] {
        case nil, .null: return nil
        case .number(let value):
            guard let whole = Int(exactly: value), range.contains(whole) else {
                throw FleetInventoryError(
                    "\(place): \(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return whole
        case let other?: throw wrongType(key, expected: "a number", got: other)
        }
    }

    /// A number in `range`.
    func double(_ key: String, in range: ClosedRange<Double>) throws(FleetInventoryError) -> Double? {
        switch members[key] {
        case nil, .null: return nil
        case .number(let value):
            guard range.contains(value) else {
                throw FleetInventoryError(
                    "\(place): \(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        case let other?: throw wrongType(key, expected: "a number", got: other)
        }
    }

    /// A string, or a whole number written as one (`"0xB6"` or `182`), as text.
    func text(_ key: String) throws(FleetInventoryError) -> String? {
        if case .number = members[key] {
            return try integer(key, in: 0...Int(UInt32.max)).map(String.init)
        }
        return try string(key)
    }

    func strings(_ key: String) throws(FleetInventoryError) -> [String]? {
        switch members[key] {
        case nil, .null: return nil
        case .array(let values):
            return try values.enumerated().map { index, value throws(FleetInventoryError) in
                guard case .string(let text) = value else {
                    throw FleetInventoryError(
                        "\(place): \(key)[\(index)] must be a string, not \(value.kind)")
                }
                return text
            }
        case let other?: throw wrongType(key, expected: "a list of strings", got: other)
        }
    }

    func array(_ key: String) throws(FleetInventoryError) -> [InventoryJSON]? {
        switch members[key] {
        case nil, .null: return nil
        case .array(let values): return values
        case let other?: throw wrongType(key, expected: "a list", got: other)
        }
    }

    /// The member `key` as an object of its own, at `place key`.
    func object(_ key: String, allowed: [String]) throws(FleetInventoryError) -> InventoryObject? {
        switch members[key] {
        case nil, .null: return nil
        case let value? where value.isObject:
            return try InventoryObject(
                value, at: place == Self.rootPlace ? key : "\(place) \(key)", allowed: allowed)
        case let other?: throw wrongType(key, expected: "an object", got: other)
        }
    }

    private func wrongType(_ key: String, expected: String, got value: InventoryJSON) -> FleetInventoryError {
        FleetInventoryError("\(place): \(key) must be \(expected), not \(value.kind)")
    }

    /// The allowed key one or two edits away from `key`, if one is.
    static func closest(to key: String, among allowed: [String]) -> String? {
        allowed.map { ($0, editDistance(key.lowercased(), $0)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
