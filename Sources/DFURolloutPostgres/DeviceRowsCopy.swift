import DFURollout
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A rollout's devices sent as the rows of one `COPY devices … FROM STDIN`, in PostgreSQL's text
/// format. The server reads copied rows without a statement's per-row work and writes their pages
/// together: a create of 100,000 devices takes 0.5–0.7 of the time an `INSERT … FROM unnest(…)` of
/// the same rows did (docs/benchmarks.md, issue 39).
struct DeviceRowsCopy {
    /// How many bytes of rows go to the server at once.
    static let chunkSize = 256 * 1024

    let rollout: Int64
    let devices: [RolloutDevice]
    /// Whether the rollout has an entry frame: each device's entry is then the entry alone.
    let framed: Bool

    var columns: [String] {
        [
            "rollout_id", "device", "position", "package_sha256",
            InventoryEntrySQL.column(framed: framed),
        ]
    }

    /// Sends every row on `connection`, inside its caller's transaction.
    func send(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.copyFrom(table: "devices", columns: columns, logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(Self.chunkSize + 1024)
            for (position, device) in devices.enumerated() {
                appendRow(device, position: position, to: &buffer)
                if buffer.readableBytes >= Self.chunkSize {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    /// One row: the rollout, the device's name, its position in the inventory, its package (none
    /// when the rules choose) and its inventory entry. Tabs separate the columns, a newline ends
    /// the row, `\N` stands for none.
    func appendRow(_ device: RolloutDevice, position: Int, to buffer: inout ByteBuffer) {
        buffer.writeString("\(rollout)\t")
        Self.appendText(device.device, to: &buffer)
        buffer.writeString("\t\(position)\t")
        if let digest = device.packageSHA256 {
            Self.appendText(digest, to: &buffer)
        } else {
            buffer.writeString(#"\N"#)
        }
        buffer.writeInteger(UInt8(ascii: "\t"))
        if let entry = device.inventoryEntry {
            Self.appendBytea(entry, to: &buffer)
        } else {
            buffer.writeString(#"\N"#)
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// Text with the four characters the format gives a meaning escaped by a backslash.
    static func appendText(_ text: String, to buffer: inout ByteBuffer) {
        guard text.utf8.contains(where: escaped.contains) else {
            buffer.writeString(text)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeString(#"\\"#)
            case UInt8(ascii: "\t"): buffer.writeString(#"\t"#)
            case UInt8(ascii: "\n"): buffer.writeString(#"\n"#)
            case UInt8(ascii: "\r"): buffer.writeString(#"\r"#)
            default: buffer.writeInteger(byte)
            }
        }
    }

    private static let escaped = Array("\\\t\n\r".utf8)

    /// Bytes in bytea's hex form, `\x` then two digits a byte, its backslash escaped for the copy.
    static func appendBytea(_ bytes: Data, to buffer: inout ByteBuffer) {
        buffer.writeString(#"\\x"#)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes.count * 2) { digits in
            for (index, byte) in bytes.enumerated() {
                digits[2 * index] = hexDigits[Int(byte >> 4)]
                digits[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
