/// A response frame with its CBOR map decoded and its error, if any, recognised.
///
/// Success carries neither `rc` (or `rc: 0`, which older servers send) nor `err`. Typed answers
/// (``ImageStateResponse``, ``ImageUploadResponse``, ``MCUmgrParameters``, ``EchoResponse``) are
/// read from it; ``check(answers:)`` suits requests whose answer has no content.
public struct SMPResponse: Hashable, Sendable {
    public let header: SMPHeader
    /// The payload's map.
    public let body: [CBORValue: CBORValue]
    /// The error the device reported; nil on success.
    public let deviceError: SMPDeviceError?

    /// Decodes a frame a server sent: a response operation and a payload of one CBOR map.
    public init(frame: SMPFrame) throws(SMPResponseError) {
        guard frame.header.operation.isResponse else {
            throw .malformed("operation \(frame.header.operation) is a request")
        }
        let value: CBORValue
        do throws(CBORDecodingError) {
            value = try CBORDecoder.decode(frame.payload)
        } catch {
            throw .malformed("payload: \(error)")
        }
        guard let body = value.mapValue else { throw .malformed("the payload is not a CBOR map") }
        header = frame.header
        self.body = body
        deviceError = try Self.error(in: body)
    }

    private static func error(in body: [CBORValue: CBORValue]) throws(SMPResponseError) -> SMPDeviceError? {
        if let err = body["err"] {
            guard let group = err["group"]?.integer(as: UInt16.self),
                let rc = err["rc"]?.integer(as: Int.self)
            else { throw .malformed("err is not a map of an integer group and rc") }
            if rc != 0 { return .group(SMPGroup(rawValue: group), rc: rc) }
        }
        if let rcValue = body["rc"] {
            guard let rc = rcValue.integer(as: Int.self) else { throw .malformed("rc is not an integer") }
            if rc != 0 { return .mcumgr(rc: rc, reason: body["rsn"]?.textValue) }
        }
        return nil
    }

    /// Checks that this answers a request of this group, command and operation, and that the
    /// device reported no error.
    public func check(answers request: SMPRequest) throws(SMPResponseError) {
        try check(group: request.group, command: request.command, operations: [request.operation.response])
    }

    func check(group: SMPGroup, command: UInt8, operations: [SMPOperation]) throws(SMPResponseError) {
        guard header.group == group, header.command == command, operations.contains(header.operation)
        else {
            throw .malformed(
                "expected \(operations.map { "\($0)" }.joined(separator: " or ")) of \(group) command \(command), got \(header.operation) of \(header.group) command \(header.command)"
            )
        }
        if let deviceError { throw .device(deviceError) }
    }

    /// The unsigned integer under `key`, which must be there and fit `Integer`.
    func required<Integer: FixedWidthInteger>(
        _ key: String, as type: Integer.Type, in map: [CBORValue: CBORValue]? = nil
    ) throws(SMPResponseError) -> Integer {
        guard let value = (map ?? body)[.text(key)] else { throw .malformed("no \(key)") }
        guard let integer = value.integer(as: Integer.self), integer >= 0 else {
            throw .malformed("\(key) is not an unsigned integer of \(Integer.bitWidth) bits")
        }
        return integer
    }
}

extension SMPHeader: CustomStringConvertible {
    public var description: String {
        "\(operation) v\(version.rawValue + 1) \(group) command \(command) seq \(sequence), \(length) bytes"
    }
}
