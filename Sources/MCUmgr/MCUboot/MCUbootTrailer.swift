import DFUSupport

/// The image trailer imgtool writes at the end of a padded image (`imgtool sign --pad`): erased
/// bytes, the swap flags and MCUboot's 16-byte magic at the slot's last bytes (imgtool
/// `image.py`, `pad_to`). With `--confirm` its `image_ok` flag is set: MCUboot then takes the
/// image for good without a test boot.
public struct MCUbootTrailer: Hashable, Sendable {
    /// The alignment the trailer is laid out for (imgtool `--max-align`, 8 unless set).
    public var maxAlign: Int
    /// The `image_ok` flag is set (0x01).
    public var imageOK: Bool

    /// The magic for the default alignment of 8.
    private static let magic: [UInt8] = [
        0x77, 0xC2, 0x95, 0xF3, 0x60, 0xD2, 0xEF, 0x7F, 0x35, 0x52, 0x50, 0x0F, 0x2C, 0xB6, 0x79, 0x80,
    ]
    /// The last 14 bytes of the magic for other alignments, after the alignment itself (u16).
    private static let alignedMagicTail: [UInt8] = [
        0x2D, 0xE1, 0x5D, 0x29, 0x41, 0x0B, 0x8D, 0x77, 0x67, 0x9C, 0x11, 0x0F, 0x1F, 0x8A,
    ]

    /// Finds the trailer at the end of `bytes`, entirely after `imageEnd`; nil when there is none.
    init?(in bytes: [UInt8], after imageEnd: Int) {
        let magicStart = bytes.count - 16
        guard magicStart >= imageEnd else { return nil }
        if Array(bytes[magicStart...]) == Self.magic {
            maxAlign = 8
        } else if Array(bytes[(magicStart + 2)...]) == Self.alignedMagicTail {
            maxAlign = Int(bytes.littleEndian(at: magicStart, as: UInt16.self))
            guard maxAlign > 0, maxAlign & (maxAlign - 1) == 0 else { return nil }
        } else {
            return nil
        }
        // image_ok sits one alignment unit before the magic, which is padded to the alignment.
        let magicSpan = (16 + maxAlign - 1) / maxAlign * maxAlign
        let imageOKOffset = bytes.count - magicSpan - maxAlign
        guard imageOKOffset >= imageEnd else { return nil }
        imageOK = bytes[imageOKOffset] == 0x01
    }
}
