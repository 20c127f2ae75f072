import GATT
import NordicDFU

/// Why an update failed (protocol doc §6.1). Raw values match the Nordic libraries': remote
/// codes are the device's status plus an offset (legacy + 0, secure + 10, extended + 20,
/// buttonless + 90, experimental buttonless + 9000); local failures are 100 to 999. SMP devices'
/// codes follow the same rule: MCUmgr + 1000, image management + 1100.
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
    /// SMP: the device came back from its reset running its previous image: MCUboot reverted
    /// the new one (it did not boot, or was not confirmed before another reset).
    case imageReverted = 311
    /// SMP: the device received the whole file, but its SHA-256 of it differs from the file's
    /// (`match: false`): bytes were lost or altered on the way.
    case imageHashMismatch = 312
    /// Pairing failed its check: the passkey given is not the device's (docs/pairing.md).
    case authenticationFailed = 313
    /// The device (or bluetoothd) rejected, canceled or timed out the pairing.
    case pairingRefused = 314
    /// This host holds a bond the device refuses: the device lost its keys, or it asks for more
    /// than the bond gives (a Just Works bond where it wants a passkey).
    case bondLost = 315
    /// The device refuses an operation on a link without (enough) security and this host has no
    /// way to pair as it asks: no passkey given, a passkey source that failed, or numeric
    /// comparison not accepted.
    case securityRequired = 316

    case invalidInternalState = 500

    // SMP (MCUmgr) return codes: 1000 + `rc` (mcumgr_err_t); image management group codes:
    // 1100 + `err.rc` (img_mgmt_err_code_t). docs/mcumgr.md lists them.
    case remoteMcumgrUnknown = 1001
    case remoteMcumgrNoMemory = 1002
    case remoteMcumgrInvalid = 1003
    case remoteMcumgrTimeout = 1004
    case remoteMcumgrNoEntry = 1005
    case remoteMcumgrBadState = 1006
    case remoteMcumgrMessageSize = 1007
    case remoteMcumgrNotSupported = 1008
    case remoteMcumgrCorrupt = 1009
    case remoteMcumgrBusy = 1010
    case remoteMcumgrAccessDenied = 1011
    case remoteMcumgrUnsupportedTooOld = 1012
    case remoteMcumgrUnsupportedTooNew = 1013

    case remoteImageUnknown = 1101
    case remoteImageFlashConfigQueryFail = 1102
    case remoteImageNoImage = 1103
    case remoteImageNoTLVs = 1104
    case remoteImageInvalidTLV = 1105
    case remoteImageTlvMultipleHashesFound = 1106
    case remoteImageTlvInvalidSize = 1107
    case remoteImageHashNotFound = 1108
    case remoteImageNoFreeSlot = 1109
    case remoteImageFlashOpenFailed = 1110
    case remoteImageFlashReadFailed = 1111
    case remoteImageFlashWriteFailed = 1112
    case remoteImageFlashEraseFailed = 1113
    case remoteImageInvalidSlot = 1114
    case remoteImageNoFreeMemory = 1115
    case remoteImageFlashContextAlreadySet = 1116
    case remoteImageFlashContextNotSet = 1117
    case remoteImageFlashAreaDeviceNull = 1118
    case remoteImageInvalidPageOffset = 1119
    case remoteImageInvalidOffset = 1120
    case remoteImageInvalidLength = 1121
    case remoteImageInvalidImageHeader = 1122
    case remoteImageInvalidImageHeaderMagic = 1123
    case remoteImageInvalidHash = 1124
    case remoteImageInvalidFlashAddress = 1125
    case remoteImageVersionGetFailed = 1126
    case remoteImageCurrentVersionIsNewer = 1127
    case remoteImageImageAlreadyPending = 1128
    case remoteImageInvalidImageVectorTable = 1129
    case remoteImageInvalidImageTooLarge = 1130
    case remoteImageInvalidImageDataOverrun = 1131
    case remoteImageImageConfirmationDenied = 1132
    case remoteImageImageSettingTestToActiveDenied = 1133
    case remoteImageActiveSlotNotKnown = 1134

    case remoteExperimentalButtonlessDFUSuccess = 9001
    case remoteExperimentalButtonlessDFUOpCodeNotSupported = 9002
    case remoteExperimentalButtonlessDFUOperationFailed = 9004

    /// Whether the device reported this error (rather than this side or the link).
    public var isRemote: Bool { rawValue < 100 || rawValue > 1000 }

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

    /// The failure of a device whose security this host did not meet.
    public init(securityFailure failure: GATTSecurityFailure) {
        self =
            switch failure {
            case .securityRequired: .securityRequired
            case .authenticationFailed: .authenticationFailed
            case .pairingRefused: .pairingRefused
            case .bondLost: .bondLost
            }
    }

    /// A buttonless DFU result; `experimental` for SDK 12's service.
    public init(buttonlessResult result: ButtonlessDFUResult, experimental: Bool) {
        let base = experimental ? 9000 : 90
        self = DFUError(rawValue: base + Int(result.rawValue)) ?? .unsupportedResponse
    }
}

/// A failed update: one `DFUError` case, the device and what happened.
public struct DFUFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var error: DFUError
    /// The device as the user named it.
    public var device: String
    /// What went wrong, in one clause.
    public var detail: String
    /// What a person can try next: the error's own advice unless the update knew better (an SMP
    /// update's, see `DFUError.smpAdvice(activation:)`).
    public var advice: String

    public init(_ error: DFUError, device: String, detail: String, advice: String? = nil) {
        self.error = error
        self.device = device
        self.detail = detail
        self.advice = advice ?? error.advice
    }

    /// One line for a person: the device, what failed, what to try.
    public var message: String { "\(device): \(explanation)" }

    /// What failed and what to try, for a line that names the device already.
    public var explanation: String { "\(detail); \(advice)" }

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
