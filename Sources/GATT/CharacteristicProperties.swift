/// What a characteristic allows, as its declaration announces it.
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    public static let read = CharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    public static let write = CharacteristicProperties(rawValue: 0x08)
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    public static let indicate = CharacteristicProperties(rawValue: 0x20)

    /// The names BlueZ uses in `GattCharacteristic1.Flags`, for the flags this type models.
    public static let names: [(String, CharacteristicProperties)] = [
        ("broadcast", .broadcast), ("read", .read),
        ("write-without-response", .writeWithoutResponse), ("write", .write),
        ("notify", .notify), ("indicate", .indicate),
    ]

    /// Builds the set from BlueZ flag names; unknown names are ignored.
    public init(flagNames: [String]) {
        self = []
        for (name, flag) in Self.names where flagNames.contains(name) { insert(flag) }
    }

    /// The BlueZ flag names of this set, in a fixed order.
    public var flagNames: [String] { Self.names.filter { contains($0.1) }.map(\.0) }
}
