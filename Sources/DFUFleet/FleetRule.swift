import FirmwareUpdate
import MCUmgr
import NordicDFU

/// Chooses a package for the devices it matches (docs/fleet.md, "Rules"): every condition given
/// must hold; a rule without conditions matches every device.
public struct FleetRule: Sendable, Equatable {
    /// A pattern for the advertised name: `*` stands for any run of characters, `?` for one.
    public var name: String?
    /// The Hardware Revision String (0x2A27) the device reports, exactly.
    public var hardwareRevision: String?
    /// Matches a device whose installed version is lower than this (`x.y.z`); a device whose
    /// version is unknown does not match.
    public var versionBelow: DFUFirmwareVersion?
    /// The MCUboot mode an SMP device tells (bootloader information): a direct-XIP device needs
    /// a package with slot variants, an overwrite-only nRF5340 one with its network core, … A
    /// device that does not tell its mode does not match.
    public var mcubootMode: MCUbootMode?
    /// Whether an SMP device's image list numbers its entries (`SMPImageLayout.numbered`): true
    /// for a build with more than one updatable image (an nRF5340 built for simultaneous
    /// updates), false for a single-image device or an nRF5340 with one image pair. A device
    /// without an image list does not match.
    public var numberedImages: Bool?
    /// The package path.
    public var package: String
    /// What the devices it matches need to be paired (docs/pairing.md); empty: it says nothing.
    public var security = DeviceSecurity()

    public init(
        name: String? = nil, hardwareRevision: String? = nil, versionBelow: DFUFirmwareVersion? = nil,
        mcubootMode: MCUbootMode? = nil, package: String
    ) {
        self.name = name
        self.hardwareRevision = hardwareRevision
        self.versionBelow = versionBelow
        self.mcubootMode = mcubootMode
        self.package = package
    }

    /// Whether the rule applies to a device with this information.
    public func matches(_ info: FleetDeviceInfo) -> Bool {
        if let name, !Glob.matches(name, info.name ?? "") { return false }
        if let hardwareRevision, info.hardwareRevision != hardwareRevision { return false }
        if let mcubootMode, info.bootloader?.mode != mcubootMode { return false }
        if let numberedImages, info.imageLayout?.numbered != numberedImages { return false }
        if let versionBelow {
            guard let installed = info.firmwareRevision.flatMap(DFUFirmwareVersion.init),
                installed < versionBelow
            else { return false }
        }
        return true
    }

    /// The conditions, for the plan's "why".
    public var summary: String {
        var conditions: [String] = []
        if let name { conditions.append("name matches \(name)") }
        if let hardwareRevision { conditions.append("hardware revision \(hardwareRevision)") }
        if let versionBelow { conditions.append("version below \(versionBelow)") }
        if let mcubootMode { conditions.append("MCUboot mode \(mcubootMode.name)") }
        if let numberedImages { conditions.append(numberedImages ? "numbered images" : "unnumbered images") }
        return conditions.isEmpty ? "any device" : conditions.joined(separator: ", ")
    }
}

/// Which package a device gets, and why.
public struct FleetPackageChoice: Sendable, Equatable {
    public var package: String
    /// `device entry`, `rule N (…)` or `defaults`.
    public var reason: String
}

extension FleetInventory {
    /// The package for `entry`: its own, else the first matching rule's, else the default; nil
    /// when none applies.
    public func packageChoice(for entry: FleetDeviceEntry, info: FleetDeviceInfo) -> FleetPackageChoice? {
        if let package = entry.package { return FleetPackageChoice(package: package, reason: "device entry") }
        if let index = rules.firstIndex(where: { $0.matches(info) }) {
            return FleetPackageChoice(
                package: rules[index].package, reason: "rule \(index + 1) (\(rules[index].summary))")
        }
        return defaults.package.map { FleetPackageChoice(package: $0, reason: "defaults") }
    }
}

/// Name patterns with `*` (any run of characters) and `?` (one character), nothing else: the
/// rules' `name`, and `dfu-update scan --name`.
public enum Glob {
    /// Whether `textValue` matches `patternText`. Greedy matching with one backtrack point (the
    /// last `*`): linear for simple patterns.
    public static func matches(_ patternText: String, _ textValue: String) -> Bool {
        let pattern = Array(patternText)
        let text = Array(textValue)
        var p = 0
        var t = 0
        var star: (pattern: Int, text: Int)?
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = (p, t)
                p += 1
            } else if let last = star {
                p = last.pattern + 1
                t = last.text + 1
                star = (last.pattern, last.text + 1)
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
