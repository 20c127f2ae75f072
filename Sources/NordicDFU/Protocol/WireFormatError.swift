import DFUSupport

/// Bytes that do not form a valid message of the protocol they were read as.
public struct WireFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which message was being decoded, e.g. "secure DFU response".
    public var message: String
    /// The offending bytes, as received.
    public var bytes: [UInt8]

    public init(_ message: String, bytes: [UInt8]) {
        self.message = message
        self.bytes = bytes
    }

    public var description: String {
        "\(message): " + (bytes.isEmpty ? "(empty)" : bytes.hexString(separator: " "))
    }
}
