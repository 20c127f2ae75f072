import DFURollout
import Foundation
import GATT

/// An inventory read one device at a time (a rollout's, which a gateway loads once and updates a
/// few devices of at a time): its entries are split apart once, without being read, and a
/// device's entry is read and checked only when that device is asked for, with the defaults and
/// rules, exactly as `FleetInventory(data:folder:)` reads a file of that one entry. The split
/// costs little per entry, so that loading a large rollout costs little more than a small one.
public struct FleetInventoryIndex: Sendable {
    /// What makes an entry's bytes (`entry(of:)`) an inventory file of that entry alone.
    public let frame: InventoryEntryFrame
    private let form: Form
    private let entries: [DeviceIdentifier: Int]
    private let folder: URL

    private enum Form: Sendable {
        /// Each entry's bytes in `data`, as the inventory writes them, at its span; the frame is
        /// the inventory's bytes before and after its `"devices"` list's elements, which hold
        /// its other members (defaults, rules).
        case json(data: Data, spans: [Range<Int>])
        /// Every device's row; the frame is the header row, and the end of a row.
        case csv(rows: [[String]])
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
            frame = InventoryEntryFrame(
                prefix: Data(data[..<(devices.array.lowerBound + 1)]),
                suffix: Data(data[(devices.array.upperBound - 1)...]))
            form = .json(data: data, spans: devices.elements)
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
            frame = InventoryEntryFrame(
                prefix: Data((Self.line(header) + "\r\n").utf8), suffix: Data("\r\n".utf8))
            form = .csv(rows: body)
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

    /// The bytes of an inventory file of `device`'s entry alone, with the defaults and rules;
    /// nil when the inventory does not list it.
    public func file(of device: DeviceIdentifier) -> Data? {
        entry(of: device).map(frame.file(of:))
    }

    /// The bytes of `device`'s entry alone (a JSON object as the inventory writes it, or a CSV
    /// row), which `frame` makes an inventory file (what a rollout keeps for each device); nil
    /// when the inventory does not list it.
    public func entry(of device: DeviceIdentifier) -> Data? {
        guard let index = entries[device] else { return nil }
        return entry(at: index)
    }

    /// The inventory of the first entry: reading it checks the defaults and rules once.
    public func first() throws(FleetInventoryError) -> FleetInventory? {
        guard let index = entries.values.min() else { return nil }
        return try FleetInventory(data: frame.file(of: entry(at: index)), folder: folder)
    }

    /// The bytes of entry `index`.
    private func entry(at index: Int) -> Data {
        switch form {
        case .json(let data, let spans): data[spans[index]]
        case .csv(let rows): Data(Self.line(rows[index]).utf8)
        }
    }

    /// A CSV record of `fields`, each quoted (RFC 4180).
    private static func line(_ fields: [String]) -> String {
        fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",")
    }
}
