/// Why an update failed (protocol doc §6.1). Raw values match the Nordic libraries': remote
/// codes are the device's status plus an offset (legacy + 0, secure + 10, extended + 20,
/// buttonless + 90, experimental buttonless + 9000); local failures are 100 and up.
public enum DFUError: Int, Error, Sendable, CaseIterable {
    case remoteLegacyDFUSuccess = 1
    case remoteLegacyDFUInvalidState = 2
    case remoteLegacyDFUNotSupported = 3
    case remoteLegacyDFUDataExceedsLimit = 4
    case remoteLegacyDFUCrcError = 5
    case remoteLegacyDFUOperationFailed = 6

    case remoteSecureDFUSuccess = 11
    case remoteSecureDFUOpCodeNotSupported = 12
    case remoteSecureDFUInvalidParameter = 13
    case remoteSecureDFUInsufficientResources = 14
    case remoteSecureDFUInvalidObject = 15
    case remoteSecureDFUSignatureMismatch = 16
    case remoteSecureDFUUnsupportedType = 17
    case remoteSecureDFUOperationNotPermitted = 18
    case remoteSecureDFUOperationFailed = 20
    case remoteSecureDFUExtendedError = 21

    case remoteExtendedErrorWrongCommandFormat = 22
    case remoteExtendedErrorUnknownCommand = 23
    case remoteExtendedErrorInitCommandInvalid = 24
    case remoteExtendedErrorFwVersionFailure = 25
    case remoteExtendedErrorHwVersionFailure = 26
    case remoteExtendedErrorSdVersionFailure = 27
    case remoteExtendedErrorSignatureMissing = 28
    case remoteExtendedErrorWrongHashType = 29
    case remoteExtendedErrorHashFailed = 30
    case remoteExtendedErrorWrongSignatureType = 31
    case remoteExtendedErrorVerificationFailed = 32
    case remoteExtendedErrorInsufficientSpace = 33

    case remoteButtonlessDFUSuccess = 91
    case remoteButtonlessDFUOpCodeNotSupported = 92
    case remoteButtonlessDFUOperationFailed = 94
    case remoteButtonlessDFUInvalidAdvertisementName = 95
    case remoteButtonlessDFUBusy = 96
    case remoteButtonlessDFUNotBonded = 97

    case fileNotSpecified = 101
    case fileInvalid = 102
    case extendedInitPacketRequired = 103
    case initPacketRequired = 104

    case failedToConnect = 201
    case deviceDisconnected = 202
    case bluetoothDisabled = 203

    case serviceDiscoveryFailed = 301
    case deviceNotSupported = 302
    case readingVersionFailed = 303
    case enablingControlPointFailed = 304
    case writingCharacteristicFailed = 305
    case receivingNotificationFailed = 306
    case unsupportedResponse = 307
    case bytesLost = 308
    case crcError = 309
    /// The device took the request that activates the image (Secure DFU's last Execute) and its
    /// answer was lost; looking for the device afterwards could not confirm that it runs the
    /// package (it did not come back, reports no version or another one). Nothing was sent again.
    case activationNotConfirmed = 310

    case invalidInternalState = 500

    case remoteExperimentalButtonlessDFUSuccess = 9001
    case remoteExperimentalButtonlessDFUOpCodeNotSupported = 9002
    case remoteExperimentalButtonlessDFUOperationFailed = 9004

    /// Whether the device reported this error (rather than this side or the link).
    public var isRemote: Bool { rawValue < 100 || rawValue > 9000 }

    /// The case name, as machine output prints it (`"name"` in docs/cli-contract.md).
    public var name: String { String(describing: self) }

    /// A Legacy DFU response status.
    public init(legacyStatus status: LegacyDFUStatus) {
        self = DFUError(rawValue: Int(status.rawValue)) ?? .unsupportedResponse
    }

    /// A Secure DFU result code, with its extended code when the result is 0x0B.
    public init(secureResult result: SecureDFUResultCode, extended: SecureDFUExtendedError?) {
        if result == .extendedError {
            let code = extended.map { 20 + Int($0.rawValue) }
            self = code.flatMap { $0 > 21 ? DFUError(rawValue: $0) : nil } ?? .unsupportedResponse
        } else {
            self = DFUError(rawValue: 10 + Int(result.rawValue)) ?? .unsupportedResponse
        }
    }

    /// A buttonless DFU result; `experimental` for SDK 12's service.
    public init(buttonlessResult result: ButtonlessDFUResult, experimental: Bool) {
        let base = experimental ? 9000 : 90
        self = DFUError(rawValue: base + Int(result.rawValue)) ?? .unsupportedResponse
    }

    /// What a person can try next, in a few words.
    public var advice: String {
        switch self {
        case .remoteExtendedErrorFwVersionFailure:
            "the device refuses this version (downgrade protection); build the package with a higher version"
        case .remoteExtendedErrorHwVersionFailure:
            "the package was built for other hardware; check --hw-version of the package"
        case .remoteExtendedErrorSdVersionFailure:
            "the package's sd_req does not list the SoftDevice on the device; rebuild it with the right --sd-req"
        case .remoteExtendedErrorSignatureMissing, .remoteExtendedErrorVerificationFailed,
            .remoteSecureDFUSignatureMismatch, .remoteExtendedErrorWrongSignatureType,
            .remoteSecureDFUInvalidObject:
            "the bootloader rejects the init packet; sign the package with the key the bootloader trusts"
        case .remoteButtonlessDFUNotBonded:
            "bond with the device first, or use an application with buttonless DFU without bonds"
        case .remoteButtonlessDFUBusy:
            "try again in a few seconds"
        case .remoteButtonlessDFUOpCodeNotSupported, .remoteButtonlessDFUInvalidAdvertisementName:
            "retry without an alternative advertising name"
        case .failedToConnect:
            "check that the device is powered, in range and advertising, then retry"
        case .deviceDisconnected, .bytesLost, .crcError, .receivingNotificationFailed:
            "move closer to the device and retry; the device waits in its bootloader for the update"
        case .bluetoothDisabled:
            "power on the adapter and check that bluetoothd runs"
        case .serviceDiscoveryFailed, .deviceNotSupported:
            "check that the device runs a Nordic DFU bootloader or an application with buttonless DFU"
        case .extendedInitPacketRequired, .initPacketRequired, .fileInvalid, .fileNotSpecified:
            "use a package with an init packet made for this bootloader"
        case .activationNotConfirmed:
            "the device may run the new image already: check what it runs (dfu-update info) before updating it again"
        case .remoteLegacyDFUInvalidState:
            "reset the device and retry"
        case .remoteLegacyDFUOperationFailed:
            "the init packet does not match the device (type, revision or SoftDevice); check the package"
        default:
            "retry; if it fails again, check the package against the device's bootloader"
        }
    }
}

/// A failed update: one `DFUError` case, the device and what happened.
public struct DFUFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var error: DFUError
    /// The device as the user named it.
    public var device: String
    /// What went wrong, in one clause.
    public var detail: String

    public init(_ error: DFUError, device: String, detail: String) {
        self.error = error
        self.device = device
        self.detail = detail
    }

    /// One line for a person: the device, what failed, what to try.
    public var message: String { "\(device): \(detail); \(error.advice)" }

    public var description: String { message }
}

extension DFUFailure {
    /// Failures a reconnection may cure: a lost link, a lost notification, lost packets, or a
    /// Legacy bootloader stuck in a previous transfer.
    public var isRetryable: Bool {
        switch error {
        case .deviceDisconnected, .receivingNotificationFailed, .bytesLost, .writingCharacteristicFailed,
            .remoteLegacyDFUInvalidState:
            true
        default:
            false
        }
    }
}
