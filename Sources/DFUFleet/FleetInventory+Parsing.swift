import FirmwareUpdate
import Foundation
import MCUmgr
import NordicDFU

extension FleetInventory {
    /// Reads an inventory file, its format told by its content: JSON when its first non-blank
    /// character is `{`, CSV otherwise. Package and public key paths are made relative to the
    /// file's folder.
    public init(contentsOf url: URL) throws(FleetInventoryError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue
        {
            throw FleetInventoryError("\(url.path) is a directory; name the inventory file (JSON or CSV)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FleetInventoryError(
                "\(url.path): cannot read the inventory; check the path and its permissions")
        }
        do throws(FleetInventoryError) {
            try self.init(data: data, folder: url.deletingLastPathComponent())
        } catch {
            throw FleetInventoryError("\(url.path): \(error.message)", isInlineSecret: error.isInlineSecret)
        }
    }

    /// Reads an inventory's bytes as `init(contentsOf:)` reads a file's, taking its package and
    /// public key paths relative to `folder` (a rollout's inventory, kept in its store).
    public init(data: Data, folder: URL) throws(FleetInventoryError) {
        let data = Self.withoutByteOrderMark(data)
        let inventory: FleetInventory
        switch Self.firstSignificantByte(of: data) {
        case nil:
            throw FleetInventoryError(
                "the inventory is empty; give JSON or CSV (docs/fleet.md, \"Inventory\")")
        case UInt8(ascii: "{"):
            inventory = try Self(json: data)
        case UInt8(ascii: "["):
            throw FleetInventoryError(
                "a JSON list; an inventory is an object with \"devices\" (and optional \"defaults\", \"rules\")"
            )
        default:
            guard let text = String(validating: data, as: UTF8.self) else {
                throw FleetInventoryError("neither JSON nor CSV text (not UTF-8)")
            }
            inventory = try Self(csv: text)
        }
        self = inventory.resolvingPaths(against: folder)
    }

    /// The first byte of `data` that is not white space: `{` opens the JSON form, `[` a JSON list
    /// (refused), anything else the CSV form.
    static func firstSignificantByte(of data: Data) -> UInt8? {
        data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }

    /// The CSV form's rows, blank ones left out.
    static func csvRows(_ text: String) -> [[String]] { CSV.rows(text).filter { !$0.allSatisfy(\.isEmpty) } }

    /// The JSON form: `{"defaults": {…}, "devices": [{…}], "rules": [{…}]}`, read strictly: an
    /// unknown key, a value of the wrong type or an empty string is an error naming the entry.
    public init(json data: Data) throws(FleetInventoryError) {
        let root = try InventoryObject(
            InventoryJSON.read([UInt8](data)), at: InventoryObject.rootPlace,
            allowed: ["defaults", "devices", "rules"])
        let defaults = try root.object(
            "defaults", allowed: ["package", "adapter", "force"] + InventoryObject.securityKeys)
        guard let deviceValues = try root.array("devices") else {
            throw FleetInventoryError("the inventory has no \"devices\" list")
        }
        let devices = try deviceValues.enumerated().map { index, value throws(FleetInventoryError) in
            try FleetDeviceEntry(json: value, number: index + 1)
        }
        let rules = try (root.array("rules") ?? []).enumerated().map {
            index, value throws(FleetInventoryError) in
            try FleetRule(json: value, number: index + 1)
        }
        try self.init(
            defaults: Defaults(
                package: defaults?.string("package"), adapter: defaults?.string("adapter"),
                force: defaults?.bool("force") ?? false, security: defaults?.security() ?? DeviceSecurity()),
            devices: devices, rules: rules)
    }

    /// The CSV form: a header row naming `device` and any of `package`, `adapter`, `force`, then one
    /// row per device. Fields may be quoted (`"a,b"`, `""` for a quote).
    public init(csv text: String) throws(FleetInventoryError) {
        let rows = Self.csvRows(text)
        guard let header = rows.first?.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) else {
            throw FleetInventoryError(
                "empty CSV; the first row must name the columns (device,package,adapter,force)")
        }
        let known = ["device", "package", "adapter", "force"] + InventoryObject.securityKeys
        for column in header { try InventoryObject.refuseInlineSecret(column, at: "the CSV header") }
        if let unknown = header.first(where: { !known.contains($0) }) {
            throw FleetInventoryError("unknown CSV column '\(unknown)'; use \(known.joined(separator: ", "))")
        }
        if let twice = header.first(where: { name in header.count(where: { $0 == name }) > 1 }) {
            throw FleetInventoryError("the CSV header names the column '\(twice)' twice")
        }
        guard header.contains("device") else {
            throw FleetInventoryError("the CSV header has no 'device' column")
        }
        var devices: [FleetDeviceEntry] = []
        for (number, row) in rows.dropFirst().enumerated() {
            func field(_ name: String) -> String? {
                guard let column = header.firstIndex(of: name) else { return nil }
                let value = row[column].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
            // A short row is refused too: read as empty, its missing fields would quietly take
            // the defaults (another package, any adapter) the operator meant to override.
            guard row.count == header.count else {
                let hint = row.count > header.count ? "a comma too many?" : "a comma or a field missing?"
                throw FleetInventoryError(
                    "CSV row \(number + 2) has \(row.count) fields, the header \(header.count) (\(hint))")
            }
            guard let device = field("device") else {
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
                try FleetDeviceEntry(
                    device: device, package: field("package"), adapter: field("adapter"), force: force,
                    security: DeviceSecurity(
                        level: field("security"), file: field("passkey_file"),
                        environment: field("passkey_env"),
                        command: field("passkey_command"), at: "CSV row \(number + 2)")))
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

extension FleetDeviceEntry {
    /// Entry `number` (1-based) of an inventory's `devices`.
    fileprivate init(json value: InventoryJSON, number: Int) throws(FleetInventoryError) {
        var place = "device \(number)"
        if case .object(let members) = value, case .string(let name)? = members["device"] {
            place += " (\(name))"
        }
        let entry = try InventoryObject(
            value, at: place,
            allowed: ["device", "package", "adapter", "force", "simulate"] + InventoryObject.securityKeys)
        guard let device = try entry.string("device") else {
            throw FleetInventoryError("\(place): device missing")
        }
        let simulate = try entry.object(
            "simulate",
            allowed: [
                "kind", "dfu_version", "firmware_version", "app_version", "hw_version", "sd_id", "public_key",
                "mtu",
                "faults", "page_erase_ms", "word_write_us", "slot_kib", "smp_buf_size", "smp_buf_count",
                "real_time_factor",
                "smp_reassembly", "smp_image_check", "smp_erase_storage", "image_hash",
                "mcuboot_mode", "mcuboot_no_downgrade", "network_core", "network_core_one_pair",
            ])
        self.init(
            device: device, package: try entry.string("package"), adapter: try entry.string("adapter"),
            force: try entry.bool("force"), simulate: try simulate.map(FleetSimulationSpec.init),
            security: try entry.security())
    }
}

extension FleetRule {
    /// Rule `number` (1-based) of an inventory's `rules`: at least one condition, so that no
    /// rule matches every device by mistake (the defaults' package is for that).
    fileprivate init(json value: InventoryJSON, number: Int) throws(FleetInventoryError) {
        let place = "rule \(number)"
        let rule = try InventoryObject(
            value, at: place,
            allowed: [
                "name", "hardware_revision", "version_below", "mcuboot_mode", "numbered_images", "package",
            ]
                + InventoryObject.securityKeys)
        guard let package = try rule.string("package") else {
            throw FleetInventoryError("\(place): package missing")
        }
        var versionBelow: DFUFirmwareVersion?
        if let text = try rule.string("version_below") {
            guard let version = DFUFirmwareVersion(text) else {
                throw FleetInventoryError("\(place): version_below '\(text)' is not a version (x.y.z)")
            }
            versionBelow = version
        }
        var mcubootMode: MCUbootMode?
        if let text = try rule.string("mcuboot_mode") {
            guard let mode = MCUbootMode(name: text) else {
                throw FleetInventoryError(
                    "\(place): mcuboot_mode '\(text)' is not an MCUboot mode (swap-using-move, overwrite-only, "
                        + "direct-xip, direct-xip-with-revert, … or a number)")
            }
            mcubootMode = mode
        }
        self.init(
            name: try rule.string("name"), hardwareRevision: try rule.string("hardware_revision"),
            versionBelow: versionBelow, mcubootMode: mcubootMode, package: package)
        numberedImages = try rule.bool("numbered_images")
        security = try rule.security()
        guard
            name != nil || hardwareRevision != nil || versionBelow != nil || mcubootMode != nil
                || numberedImages != nil
        else {
            throw FleetInventoryError(
                "\(place) has no condition (name, hardware_revision, version_below, mcuboot_mode or "
                    + "numbered_images) and would match "
                    + "every device; give the package to all devices through \"defaults\" instead")
        }
    }
}
