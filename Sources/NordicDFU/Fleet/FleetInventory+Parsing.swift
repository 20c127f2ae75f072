import Foundation

extension FleetInventory {
    /// Reads an inventory file: JSON when its first non-blank character is `{`, else CSV. Package
    /// and public key paths are made relative to the file's folder.
    public init(contentsOf url: URL) throws(FleetInventoryError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FleetInventoryError(
                "\(url.path): cannot read the inventory (\(error.localizedDescription))")
        }
        let text = String(decoding: data, as: UTF8.self)
        let folder = url.deletingLastPathComponent()
        let isJSON = text.first { !$0.isWhitespace } == "{"
        do throws(FleetInventoryError) {
            let inventory = isJSON ? try Self(json: data) : try Self(csv: text)
            self = inventory.resolvingPaths(against: folder)
        } catch {
            throw FleetInventoryError("\(url.path): \(error.message)")
        }
    }

    /// The JSON form: `{"defaults": {…}, "devices": [{…}], "rules": [{…}]}`.
    public init(json data: Data) throws(FleetInventoryError) {
        let file: InventoryFile
        do {
            file = try JSONDecoder().decode(InventoryFile.self, from: data)
        } catch let error as DecodingError {
            throw FleetInventoryError("not a valid inventory: \(error.summary)")
        } catch {
            throw FleetInventoryError("not a valid inventory: \(error)")
        }
        let rules = try file.rules.enumerated().map { index, rule throws(FleetInventoryError) in
            try rule.rule(number: index + 1)
        }
        try self.init(
            defaults: Defaults(
                package: file.defaults?.package, adapter: file.defaults?.adapter,
                force: file.defaults?.force ?? false),
            devices: file.devices.map {
                FleetDeviceEntry(
                    device: $0.device, package: $0.package, adapter: $0.adapter, force: $0.force,
                    simulate: $0.simulate)
            }, rules: rules)
    }

    /// The CSV form: a header row naming `device` and any of `package`, `adapter`, `force`, then one
    /// row per device. Fields may be quoted (`"a,b"`, `""` for a quote).
    public init(csv text: String) throws(FleetInventoryError) {
        let rows = CSV.rows(text).filter { !$0.allSatisfy(\.isEmpty) }
        guard let header = rows.first?.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) else {
            throw FleetInventoryError(
                "empty CSV; the first row must name the columns (device,package,adapter,force)")
        }
        let known = ["device", "package", "adapter", "force"]
        if let unknown = header.first(where: { !known.contains($0) }) {
            throw FleetInventoryError("unknown CSV column '\(unknown)'; use device, package, adapter, force")
        }
        guard let deviceColumn = header.firstIndex(of: "device") else {
            throw FleetInventoryError("the CSV header has no 'device' column")
        }
        var devices: [FleetDeviceEntry] = []
        for (number, row) in rows.dropFirst().enumerated() {
            func field(_ name: String) -> String? {
                guard let column = header.firstIndex(of: name), column < row.count else { return nil }
                let value = row[column].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
            guard deviceColumn < row.count, let device = field("device") else {
                throw FleetInventoryError("CSV row \(number + 2) has no device")
            }
            var force: Bool?
            if let text = field("force") {
                guard let value = ["true": true, "false": false, "1": true, "0": false][text.lowercased()]
                else {
                    throw FleetInventoryError("CSV row \(number + 2): force '\(text)' is not true or false")
                }
                force = value
            }
            devices.append(
                FleetDeviceEntry(
                    device: device, package: field("package"), adapter: field("adapter"), force: force))
        }
        try self.init(devices: devices)
    }

    /// Package and public key paths taken relative to `folder` unless absolute.
    func resolvingPaths(against folder: URL) -> FleetInventory {
        func resolve(_ path: String?) -> String? {
            guard let path, !path.hasPrefix("/") else { return path }
            return folder.appendingPathComponent(path).standardizedFileURL.path
        }
        var copy = self
        copy.defaults.package = resolve(defaults.package)
        for index in copy.devices.indices {
            copy.devices[index].package = resolve(devices[index].package)
            copy.devices[index].simulate?.publicKey = resolve(devices[index].simulate?.publicKey)
        }
        for index in copy.rules.indices { copy.rules[index].package = resolve(rules[index].package)! }
        return copy
    }
}

/// The JSON inventory as written.
private struct InventoryFile: Decodable {
    struct Defaults: Decodable {
        var package: String?
        var adapter: String?
        var force: Bool?
    }

    struct Device: Decodable {
        var device: String
        var package: String?
        var adapter: String?
        var force: Bool?
        var simulate: FleetSimulationSpec?
    }

    struct Rule: Decodable {
        var name: String?
        var hardwareRevision: String?
        var versionBelow: String?
        var package: String

        enum CodingKeys: String, CodingKey {
            case name, package
            case hardwareRevision = "hardware_revision"
            case versionBelow = "version_below"
        }

        func rule(number: Int) throws(FleetInventoryError) -> FleetRule {
            var version: DFUFirmwareVersion?
            if let versionBelow {
                guard let parsed = DFUFirmwareVersion(versionBelow) else {
                    throw FleetInventoryError("rule \(number): version_below '\(versionBelow)' is not x.y.z")
                }
                version = parsed
            }
            return FleetRule(
                name: name, hardwareRevision: hardwareRevision, versionBelow: version, package: package)
        }
    }

    var defaults: Defaults?
    var devices: [Device]
    var rules: [Rule] = []

    enum CodingKeys: String, CodingKey { case defaults, devices, rules }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        defaults = try container.decodeIfPresent(Defaults.self, forKey: .defaults)
        devices = try container.decode([Device].self, forKey: .devices)
        rules = try container.decodeIfPresent([Rule].self, forKey: .rules) ?? []
    }
}

extension DecodingError {
    /// Where in the document and what: `devices[3].device: missing`.
    fileprivate var summary: String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch self {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): expected \(type)"
        case .dataCorrupted(let context): return "\(path(context.codingPath)) \(context.debugDescription)"
        @unknown default: return "\(self)"
        }
    }
}

/// RFC 4180 records, enough for inventories.
enum CSV {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = text.makeIterator()
        var pending: Character?
        while let character = pending ?? characters.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    let next = characters.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
