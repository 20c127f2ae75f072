import Foundation

/// Writes bytes as Intel HEX, the way Zephyr's build writes `zephyr.signed.hex`: data records of
/// 16 bytes, an extended linear address record at each 64 KiB boundary, the end record.
public enum IntelHexText {
    /// `bytes` placed at `address`, as the text of a `.hex` file.
    public static func encode(_ bytes: [UInt8], at address: Int) -> String {
        var lines: [String] = []
        var upper = -1
        for offset in stride(from: 0, to: bytes.count, by: 16) {
            let at = address + offset
            if at >> 16 != upper {
                upper = at >> 16
                lines.append(record(4, 0, [UInt8(upper >> 8), UInt8(upper & 0xFF)]))
            }
            lines.append(record(0, UInt16(at & 0xFFFF), Array(bytes[offset..<min(bytes.count, offset + 16)])))
        }
        lines.append(record(1, 0, []))
        return lines.joined(separator: "\n") + "\n"
    }

    /// One record line with its checksum.
    public static func record(_ type: UInt8, _ address: UInt16, _ data: [UInt8]) -> String {
        let bytes = [UInt8(data.count), UInt8(address >> 8), UInt8(address & 0xFF), type] + data
        let checksum = UInt8(truncatingIfNeeded: 0 &- bytes.reduce(0, &+))
        return ":" + (bytes + [checksum]).map { String(format: "%02X", $0) }.joined()
    }
}
