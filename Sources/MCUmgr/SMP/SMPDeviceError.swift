/// An error a device answered with (Zephyr `smp_protocol.rst`, "Minimal response").
///
/// SMP version 1 reports every error as `{rc, rsn?}`, an MCUmgr return code (a group's own code
/// translated to one); version 2 reports a group's error as `{err: {group, rc}}` and SMP-level
/// errors still as `rc`.
public enum SMPDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `rc`, an MCUmgr return code, with the device's explanation (`rsn`) when it sends one.
    case mcumgr(rc: Int, reason: String?)
    /// `err: {group, rc}`, a code of that group.
    case group(SMPGroup, rc: Int)

    /// The MCUmgr return code, when the error is one and the code is known.
    public var mcumgrCode: MCUmgrReturnCode? {
        guard case .mcumgr(let rc, _) = self else { return nil }
        return MCUmgrReturnCode(rawValue: rc)
    }

    /// The image management code, when the error is one of group 1 and the code is known.
    public var imageManagementCode: ImageManagementReturnCode? {
        guard case .group(.image, let rc) = self else { return nil }
        return ImageManagementReturnCode(rawValue: rc)
    }

    /// The version to send the request again in, when the device refused the SMP version.
    public var versionToRetry: SMPVersion? {
        switch mcumgrCode {
        case .unsupportedTooOld: .v2
        case .unsupportedTooNew: .v1
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .mcumgr(let rc, let reason):
            let code = MCUmgrReturnCode(rawValue: rc)?.description ?? "\(rc)"
            return "MCUmgr error \(code)" + (reason.map { ": \($0)" } ?? "")
        case .group(let group, let rc):
            let code = imageManagementCode?.description ?? "\(rc)"
            return "\(group) error \(code)"
        }
    }
}

/// Why a response cannot be used: it is not the expected one, or the device reported an error.
public enum SMPResponseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The frame or its CBOR is not a response of the expected shape; says what is wrong.
    case malformed(String)
    /// The device answered with an error.
    case device(SMPDeviceError)

    public var description: String {
        switch self {
        case .malformed(let what): "malformed SMP response: \(what)"
        case .device(let error): "the device answered with \(error)"
        }
    }
}
