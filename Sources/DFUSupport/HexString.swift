extension Sequence<UInt8> {
    /// Hex, two digits a byte (lower case unless `uppercase`), with `separator` between bytes.
    /// Built from a table, with no formatter: `dfu-sim --trace` writes it for every write it
    /// takes, and an inventory's addresses are printed by the 100,000.
    @inlinable
    public func hexString(separator: String = "", uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        let between = Array(separator.utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * (2 + between.count))
        for (index, byte) in enumerated() {
            if index > 0 { text += between }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension UInt8 {
    /// The value of this byte as an ASCII hex digit, in either case; nil for any other byte.
    public var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
