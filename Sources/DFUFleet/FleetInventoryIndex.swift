import Foundation
import GATT

/// An inventory read one device at a time (a rollout's, which a gateway loads once and updates a
/// few devices of at a time): its entries are split apart once, without being read, and a
/// device's entry is read and checked only when that device is asked for, with the defaults and
/// rules, exactly as `FleetInventory(data:folder:)` reads a file of that one entry. The split
/// costs little per entry, so that loading a large rollout costs little more than a small one.
public struct FleetInventoryIndex: Sendable {
    private let form: Form
    private let entries: [DeviceIdentifier: Int]
    private let folder: URL

    private enum Form: Sendable {
        /// An entry's file is `head`, then the entry's bytes in `data` (as the inventory writes
        /// them) at its span, then `tail`: the inventory's bytes before and after its
        /// `"devices"` list's elements, which hold its other members (defaults, rules).
        case json(head: Data, data: Data, spans: [Range<Int>], tail: Data)
        /// The header row and every device's row.
        case csv(header: [String], rows: [[String]])
    }

    /// Splits an inventory's bytes (JSON or CSV, as `FleetInventory(data:folder:)` tells them
    /// apart) into its entries; fails only when the bytes are neither, or JSON without a
    /// `"devices"` list. The bytes are those of an inventory read whole before (a rollout's is,
    /// when it is made): they are split, not checked, and each entry is checked when asked for.
    public init(data: Data, folder: URL) throws(FleetInventoryError) {
        self.folder = folder
        let data = FleetInventory.withoutByteOrderMark(data)
        var entries: [DeviceIdentifier: Int] = [:]
        if FleetInventory.firstSignificantByte(of: data) == UInt8(ascii: "{") {
            // scanned, not parsed: a parse holds an object per entry (of a 100,000-device
            // inventory, two thirds of `rollout create`'s memory)
            guard let devices = JSONArraySpans.array(ofMember: "devices", in: data, naming: "device") else {
                throw FleetInventoryError("the inventory has no \"devices\" list")
            }
            for (index, name) in devices.names.enumerated() {
                guard let name else { continue }
                entries[DeviceIdentifier(name)] = entries[DeviceIdentifier(name)] ?? index
            }
            // an entry's file is the inventory as written with that entry alone in its list
            let data = Data(data)  // indexed from 0, as the ranges
            form = .json(
                head: data[..<(devices.array.lowerBound + 1)], data: data, spans: devices.elements,
                tail: data[(devices.array.upperBound - 1)...])
        } else {
            guard let text = String(validating: data, as: UTF8.self) else {
                throw FleetInventoryError("neither JSON nor CSV text (not UTF-8)")
            }
            let rows = FleetInventory.csvRows(text)
            let header = rows.first ?? []
            let column = header.firstIndex {
                $0.trimmingCharacters(in: .whitespaces).lowercased() == "device"
            }
            let body = Array(rows.dropFirst())
            for (index, row) in body.enumerated() {
                guard let column, column < row.count else { continue }
                let name = DeviceIdentifier(row[column].trimmingCharacters(in: .whitespaces))
                entries[name] = entries[name] ?? index
            }
            form = .csv(header: header, rows: body)
        }
        self.entries = entries
    }

    /// Whether the inventory lists `device` (an address in any case).
    public func lists(_ device: DeviceIdentifier) -> Bool { entries[device] != nil }

    /// The inventory of `device`'s entry alone, with the defaults and rules; nil when it does
    /// not list the device; throws what reading that entry as a file finds wrong.
    public func inventory(of device: DeviceIdentifier) throws(FleetInventoryError) -> FleetInventory? {
        try file(of: device).map { data throws(FleetInventoryError) in
            try FleetInventory(data: data, folder: folder)
        }
    }

    /// The bytes of an inventory file of `device`'s entry alone, with the defaults and rules
    /// (what a rollout keeps for each device); nil when the inventory does not list it.
    public func file(of device: DeviceIdentifier) -> Data? {
        guard let index = entries[device] else { return nil }
        return bytes(of: index)
    }

    /// The inventory of the first entry: reading it checks the defaults and rules once.
    public func first() throws(FleetInventoryError) -> FleetInventory? {
        guard let index = entries.values.min() else { return nil }
        return try FleetInventory(data: bytes(of: index), folder: folder)
    }

    /// The bytes of an inventory file holding entry `index` alone.
    private func bytes(of index: Int) -> Data {
        switch form {
        case .json(let head, let data, let spans, let tail):
            return head + data[spans[index]] + tail
        case .csv(let header, let rows):
            return Data((Self.line(header) + "\r\n" + Self.line(rows[index]) + "\r\n").utf8)
        }
    }

    /// A CSV record of `fields`, each quoted (RFC 4180).
    private static func line(_ fields: [String]) -> String {
        fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",")
    }
}
