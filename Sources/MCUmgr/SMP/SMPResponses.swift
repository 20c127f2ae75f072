/// The answer to an upload chunk (Zephyr `img_mgmt.c`): `{off, match?}`, and `rc: 0` from
/// servers built with `CONFIG_MCUMGR_SMP_LEGACY_RC_BEHAVIOUR`.
public struct ImageUploadResponse: Hashable, Sendable {
    /// The offset the device expects next. A chunk sent at another offset was dropped; the client
    /// continues from here (also how a resumed upload learns where to start).
    public var offset: UInt32
    /// After the last chunk of an upload that gave `sha` (and with
    /// `CONFIG_IMG_ENABLE_IMAGE_CHECK`): whether the slot's contents have that SHA-256.
    public var match: Bool?

    public init(offset: UInt32, match: Bool?) {
        self.offset = offset
        self.match = match
    }

    public init(_ response: SMPResponse) throws(SMPResponseError) {
        try response.check(
            group: .image, command: SMPRequest.Command.imageUpload, operations: [.writeResponse])
        offset = try response.required("off", as: UInt32.self)
        if let value = response.body["match"] {
            guard let match = value.boolValue else { throw .malformed("match is not a boolean") }
            self.match = match
        }
    }
}

/// The answer to ``SMPRequest/mcumgrParameters`` (Zephyr `os_mgmt.c`): the size and number of
/// the device's SMP buffers (`CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` and `_COUNT`, 384 and 4 by
/// default). A request frame, header included, must fit in `bufferSize`.
public struct MCUmgrParameters: Hashable, Sendable {
    public var bufferSize: UInt32
    public var bufferCount: UInt32

    public init(bufferSize: UInt32, bufferCount: UInt32) {
        self.bufferSize = bufferSize
        self.bufferCount = bufferCount
    }

    public init(_ response: SMPResponse) throws(SMPResponseError) {
        try response.check(answers: .mcumgrParameters)
        bufferSize = try response.required("buf_size", as: UInt32.self)
        bufferCount = try response.required("buf_count", as: UInt32.self)
    }
}

/// The answer to ``SMPRequest/echo(_:)``: `{r}`, the text sent.
public struct EchoResponse: Hashable, Sendable {
    public var text: String

    public init(_ response: SMPResponse) throws(SMPResponseError) {
        try response.check(
            group: .os, command: SMPRequest.Command.echo, operations: [.writeResponse, .readResponse])
        guard let text = response.body["r"]?.textValue else { throw .malformed("no r text") }
        self.text = text
    }
}

extension [CBORValue: CBORValue] {
    /// The value under the text key `key`.
    subscript(key: String) -> CBORValue? { self[.text(key)] }
}
