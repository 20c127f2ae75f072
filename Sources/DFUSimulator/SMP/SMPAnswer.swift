import MCUmgr

/// What a simulated SMP handler answers, before it is encoded for the request's SMP version.
enum SMPAnswer: Equatable, Sendable {
    /// The answer's map.
    case success([CBORValue: CBORValue])
    /// A group error: SMP version 2 sends `{err: {group, rc}}`, version 1 the MCUmgr code the
    /// group translates it to.
    case imageError(ImageManagementReturnCode)
    /// An SMP-level error, `{rc}` in both versions.
    case mcumgrError(MCUmgrReturnCode)
    /// An OS group error: `{err: {group: 0, rc}}` for version 2, `translated` for version 1
    /// (`os_mgmt_translate_error_code`).
    case osError(rc: Int, translated: MCUmgrReturnCode)

    /// The payload map for a request of `version` (Zephyr `smp_add_cmd_err`, `smp_build_err_rsp`,
    /// `img_mgmt_translate_error_code`).
    func body(for version: SMPVersion) -> CBORValue {
        switch self {
        case .success(let entries):
            return .map(entries)
        case .imageError(let code):
            guard version == .v2 else { return ["rc": CBORValue(Self.translated(code).rawValue)] }
            return ["err": ["group": CBORValue(SMPGroup.image.rawValue), "rc": CBORValue(code.rawValue)]]
        case .mcumgrError(let code):
            return ["rc": CBORValue(code.rawValue)]
        case .osError(let rc, let translated):
            guard version == .v2 else { return ["rc": CBORValue(translated.rawValue)] }
            return ["err": ["group": CBORValue(SMPGroup.os.rawValue), "rc": CBORValue(rc)]]
        }
    }

    /// The MCUmgr code an image group error becomes for an SMP version 1 request.
    static func translated(_ code: ImageManagementReturnCode) -> MCUmgrReturnCode {
        switch code {
        case .ok: .ok
        case .noImage, .noTLVs: .noEntry
        case .noFreeSlot, .currentVersionIsNewer, .imageAlreadyPending: .badState
        case .noFreeMemory: .noMemory
        case .invalidSlot, .invalidPageOffset, .invalidOffset, .invalidLength, .invalidImageHeader,
            .invalidHash,
            .invalidFlashAddress:
            .invalid
        default: .unknown
        }
    }
}

/// A request map field of the wrong type: Zephyr's bulk decoder fails and the answer is
/// `MGMT_ERR_EINVAL`.
struct SMPRequestInvalid: Error {}

/// A request's CBOR map, read as Zephyr's `zcbor_map_decode_bulk` does: every key is optional,
/// unknown keys are skipped, a known key of the wrong type fails the request.
struct SMPRequestMap {
    private let entries: [CBORValue: CBORValue]

    init(payload: [UInt8]) throws(SMPRequestInvalid) {
        guard let value = try? CBORDecoder.decode(payload), let entries = value.mapValue else {
            throw SMPRequestInvalid()
        }
        self.entries = entries
    }

    func unsigned(_ key: String) throws(SMPRequestInvalid) -> UInt64? {
        try field(key) { $0.integer(as: UInt64.self) }
    }

    func bytes(_ key: String) throws(SMPRequestInvalid) -> [UInt8]? { try field(key) { $0.bytesValue } }

    func text(_ key: String) throws(SMPRequestInvalid) -> String? { try field(key) { $0.textValue } }

    func bool(_ key: String) throws(SMPRequestInvalid) -> Bool? { try field(key) { $0.boolValue } }

    private func field<Value>(_ key: String, _ read: (CBORValue) -> Value?) throws(SMPRequestInvalid)
        -> Value?
    {
        guard let value = entries[.text(key)] else { return nil }
        guard let typed = read(value) else { throw SMPRequestInvalid() }
        return typed
    }
}
