import GATT

/// How this host pairs with a device that asks for security (docs/pairing.md).
public struct PairingSettings: Sendable, Equatable {
    /// Where a passkey comes from; without one only Just Works pairing (encryption without
    /// authentication) is possible.
    public var passkey: PasskeySource?
    /// Whether a numeric comparison (both sides show a number) is confirmed. Off unless a person
    /// said the numbers match, or does not care: it authenticates nothing unattended.
    public var acceptsNumericComparison = false
    /// Pair right after connecting, before the update asks anything of the device. Otherwise the
    /// device pairs only when it refuses an operation for security, once per connection.
    public var pairsFirst = false
    /// Whether some devices have passkey sources of their own (a fleet's inventory): the agent
    /// then offers passkey entry even without `passkey`.
    public var passkeysPerDevice = false

    public init(
        passkey: PasskeySource? = nil, acceptsNumericComparison: Bool = false, pairsFirst: Bool = false
    ) {
        self.passkey = passkey
        self.acceptsNumericComparison = acceptsNumericComparison
        self.pairsFirst = pairsFirst
    }

    /// The IO capability the agent registers with: it decides which pairing method the kernel's
    /// SMP picks (Bluetooth Core 5.4, Vol 3, Part H, 2.3.5.1).
    public var capability: String {
        switch (passkey != nil || passkeysPerDevice, acceptsNumericComparison) {
        case (true, true): "KeyboardDisplay"
        case (true, false): "KeyboardOnly"
        case (false, true): "DisplayYesNo"
        case (false, false): "NoInputNoOutput"
        }
    }
}
