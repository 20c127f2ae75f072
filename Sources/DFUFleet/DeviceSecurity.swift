import GATT

/// What a device's update characteristic asks of the link (docs/pairing.md, "Which devices need
/// what").
public enum SecurityLevel: String, Sendable, CaseIterable {
    /// Anyone may write.
    case open
    /// An encrypted link: any pairing, Just Works included.
    case encrypt
    /// An authenticated (MITM-protected) pairing: a passkey.
    case authenticated
}

/// An inventory's word on one device's security: the level it needs and where its passkey comes
/// from. Only a reference (a file, an environment variable's name, a program), never the passkey:
/// the machine that pairs reads it when the device asks.
public struct DeviceSecurity: Sendable, Equatable, CustomStringConvertible {
    public var level: SecurityLevel?
    public var passkey: PasskeySource?

    public init(level: SecurityLevel? = nil, passkey: PasskeySource? = nil) {
        self.level = level
        self.passkey = passkey
    }

    /// Whether it says nothing.
    public var isEmpty: Bool { level == nil && passkey == nil }

    /// This one, with what it leaves open taken from `fallback`.
    public func over(_ fallback: DeviceSecurity) -> DeviceSecurity {
        DeviceSecurity(level: level ?? fallback.level, passkey: passkey ?? fallback.passkey)
    }

    /// `authenticated, passkey from the environment variable NAME`: names the source, never a
    /// passkey.
    public var description: String {
        let level = level?.rawValue ?? "not stated"
        return passkey.map { "\(level), passkey from \($0)" } ?? "\(level), no passkey source"
    }
}

extension FleetInventory {
    /// What `entry`'s device needs: its entry's word, else the first matching rule that states
    /// one, else the defaults'. Each of level and passkey source falls back on its own.
    public func security(for entry: FleetDeviceEntry, info: FleetDeviceInfo) -> DeviceSecurity {
        let rule = rules.first { !$0.security.isEmpty && $0.matches(info) }?.security ?? DeviceSecurity()
        return entry.security.over(rule).over(defaults.security)
    }

    /// Whether any entry, rule or the defaults name a passkey source.
    public var namesPasskeySources: Bool {
        devices.contains { $0.security.passkey != nil } || rules.contains { $0.security.passkey != nil }
            || defaults.security.passkey != nil
    }
}
