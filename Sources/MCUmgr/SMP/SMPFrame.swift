import DFUSupport

/// One SMP message: the header and the CBOR payload whose length the header gives.
public struct SMPFrame: Hashable, Sendable {
    /// The header; its `length` is always `payload.count`.
    public let header: SMPHeader
    public let payload: [UInt8]

    /// A frame carrying `payload`, which must be at most 65 535 bytes.
    public init(
        operation: SMPOperation, version: SMPVersion, group: SMPGroup, sequence: UInt8, command: UInt8,
        payload: [UInt8]
    ) {
        precondition(payload.count <= Int(UInt16.max), "an SMP payload holds at most 65535 bytes")
        header = SMPHeader(
            operation: operation, version: version, length: UInt16(payload.count), group: group,
            sequence: sequence, command: command)
        self.payload = payload
    }

    /// Decodes a whole frame: exactly 8 bytes of header and the `length` bytes it announces.
    public init(decoding bytes: [UInt8]) throws(SMPFrameError) {
        let header = try SMPHeader(decoding: bytes[...])
        guard bytes.count == SMPHeader.size + Int(header.length) else {
            throw SMPFrameError(
                "SMP frame of \(bytes.count) bytes, but its header announces \(SMPHeader.size + Int(header.length))",
                bytes: bytes)
        }
        self.header = header
        payload = Array(bytes[SMPHeader.size...])
    }

    public var encoded: [UInt8] { header.encoded + payload }
}

/// Bytes that are not a valid SMP frame (or header).
public struct SMPFrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The offending bytes.
    public var bytes: [UInt8]

    public init(_ message: String, bytes: [UInt8]) {
        self.message = message
        self.bytes = bytes
    }

    public var description: String {
        let shown = bytes.prefix(32).hexString(separator: " ")
        return "\(message): " + (bytes.isEmpty ? "(empty)" : shown + (bytes.count > 32 ? " …" : ""))
    }
}
