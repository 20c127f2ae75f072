import DFUFleet
import NordicDFU

/// A device's place in the plan, as the `plan` event (docs/fleet.md) and as a line for a person.
enum FleetPlanLine {
    static func members(_ entry: FleetPlanEntry) -> [(String, JSONValue)] {
        [
            ("device", .string(entry.device)), ("found", .bool(entry.found)),
            ("address", .optional(entry.info?.address.description)), ("name", .optional(entry.info?.name)),
            ("mode", .optional(entry.info?.mode?.rawValue)),
            ("protocol", .optional(entry.info?.dfuProtocol?.rawValue)),
            ("bootloader", .optional(entry.info?.bootloader?.summary)),
            ("image_layout", .optional(entry.imageLayout)),
            ("installed", .optional(entry.info?.firmwareRevision)),
            ("hardware_revision", .optional(entry.info?.hardwareRevision)),
            ("package", .optional(entry.choice?.package)),
            ("package_version", .optional(entry.packageVersion)),
            ("reason", .optional(entry.choice?.reason)), ("decision", .optional(entry.decision?.rawValue)),
            ("note", .optional(entry.note)),
            ("security", .optional(entry.security?.level?.rawValue)),
            ("passkey_source", .optional(entry.security?.passkey?.description)),
        ]
    }

    static func text(_ entry: FleetPlanEntry) -> String {
        guard entry.found, let info = entry.info else {
            return "\(entry.device): \(entry.note ?? "not found")"
        }
        let bootloader = info.bootloader.map { ", \($0.summary)" } ?? ""
        let where_ =
            "\(info.address), \(info.mode?.rawValue ?? "unknown mode")\(bootloader), runs \(info.firmwareRevision ?? "unknown")"
            + (entry.imageLayout.map { ", \($0)" } ?? "")
        // where the passkey comes from, never the passkey
        let security = entry.security.map { "; security: \($0)" } ?? ""
        guard let choice = entry.choice else {
            return "\(entry.device) (\(where_)): \(entry.note ?? "no package")\(security)"
        }
        let decision =
            switch entry.decision {
            case .update: "would update"
            case .skip: "up to date, would skip"
            case .forced: "up to date, would update anyway (force)"
            case .activate: "a slot holds the package's image, would only activate it"
            case .confirm: "runs the package's image on test, would only confirm it"
            case .unknown, nil: "cannot compare versions, would update"
            }
        return
            "\(entry.device) (\(where_)): \(choice.package) \(entry.packageVersion ?? "") by \(choice.reason); \(decision)\(security)"
    }
}
