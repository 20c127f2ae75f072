import GATT

/// The inventory's security keys (docs/fleet.md, "Security"): a level and at most one passkey
/// source, as a reference. A key that would hold the passkey itself is refused as such, without
/// its value in the message.
extension InventoryObject {
    /// The keys an entry, a rule or the defaults may have for security.
    static let securityKeys = ["security", "passkey_file", "passkey_env", "passkey_command"]

    /// Names that would hold a secret itself rather than say where it is.
    static let inlineSecretKeys: Set<String> = [
        "passkey", "pin", "pin_code", "pincode", "passcode", "password", "secret", "passkey_value",
    ]

    /// Refuses `key` when it looks like an inline secret.
    static func refuseInlineSecret(_ key: String, at place: String) throws(FleetInventoryError) {
        let name = key.lowercased()
        guard !securityKeys.contains(name),
            inlineSecretKeys.contains(name)
                || ["passkey", "password", "secret"].contains(where: { name.contains($0) })
        else { return }
        throw FleetInventoryError(
            "\(place): '\(key)' would hold a passkey in the inventory; an inventory names only where the "
                + "passkey is (passkey_file, passkey_env or passkey_command, read on the machine that pairs; "
                + "docs/pairing.md): remove it, and keep the passkey out of files others may read",
            isInlineSecret: true)
    }

    /// The security these members state.
    func security() throws(FleetInventoryError) -> DeviceSecurity {
        try DeviceSecurity(
            level: string("security"), file: string("passkey_file"), environment: string("passkey_env"),
            command: string("passkey_command"), at: place)
    }
}

extension DeviceSecurity {
    /// From an inventory's texts (JSON members or CSV fields) at `place`.
    init(level: String?, file: String?, environment: String?, command: String?, at place: String)
        throws(FleetInventoryError)
    {
        var parsedLevel: SecurityLevel?
        if let level {
            guard let known = SecurityLevel(rawValue: level.lowercased()) else {
                throw FleetInventoryError(
                    "\(place): security '\(level)' is not open, encrypt or authenticated")
            }
            parsedLevel = known
        }
        let sources = [
            file.map(PasskeySource.file), environment.map(PasskeySource.environment),
            command.map(PasskeySource.command),
        ].compactMap { $0 }
        guard sources.count <= 1 else {
            throw FleetInventoryError(
                "\(place): passkey_file, passkey_env and passkey_command exclude each other; give one")
        }
        if parsedLevel == .open, !sources.isEmpty {
            throw FleetInventoryError("\(place): security 'open' takes no passkey source")
        }
        self.init(level: parsedLevel, passkey: sources.first)
    }
}
