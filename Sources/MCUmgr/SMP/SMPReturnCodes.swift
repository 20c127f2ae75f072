/// MCUmgr return codes, the `rc` of an SMP version 1 error and of SMP-level errors in version 2
/// (`mcumgr_err_t`, Zephyr `include/zephyr/mgmt/mcumgr/mgmt/mgmt_defines.h`).
public enum MCUmgrReturnCode: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case ok = 0
    case unknown
    case noMemory
    case invalid
    case timeout
    case noEntry
    case badState
    case messageSize
    case notSupported
    case corrupt
    case busy
    case accessDenied
    /// The device does not take this SMP version any more (a version 1 request to a server built
    /// without the original protocol): send version 2.
    case unsupportedTooOld
    /// The request's SMP version is newer than the device's: send version 1.
    case unsupportedTooNew

    /// The name in Zephyr's sources, e.g. `MGMT_ERR_ENOENT`.
    public var name: String {
        let names = [
            "EOK", "EUNKNOWN", "ENOMEM", "EINVAL", "ETIMEOUT", "ENOENT", "EBADSTATE", "EMSGSIZE", "ENOTSUP",
            "ECORRUPT", "EBUSY", "EACCESSDENIED", "UNSUPPORTED_TOO_OLD", "UNSUPPORTED_TOO_NEW",
        ]
        return "MGMT_ERR_" + names[rawValue]
    }

    public var description: String { "\(rawValue) (\(name))" }
}

/// Image management group return codes, the `err.rc` of an SMP version 2 error from group 1
/// (`img_mgmt_err_code_t`, Zephyr `include/zephyr/mgmt/mcumgr/grp/img_mgmt/img_mgmt.h`).
public enum ImageManagementReturnCode: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case ok = 0
    case unknown
    case flashConfigQueryFail
    case noImage
    case noTLVs
    case invalidTLV
    case tlvMultipleHashesFound
    case tlvInvalidSize
    /// State write: no slot holds an image with this hash.
    case hashNotFound
    /// Upload: no slot is free to take the image (erase, or confirm/revert the pending one).
    case noFreeSlot
    case flashOpenFailed
    case flashReadFailed
    case flashWriteFailed
    case flashEraseFailed
    case invalidSlot
    case noFreeMemory
    case flashContextAlreadySet
    case flashContextNotSet
    case flashAreaDeviceNull
    case invalidPageOffset
    /// Upload without `off`.
    case invalidOffset
    /// First upload chunk without `len`.
    case invalidLength
    /// First upload chunk shorter than the 32-byte image header.
    case invalidImageHeader
    /// First upload chunk without MCUboot's magic.
    case invalidImageHeaderMagic
    /// State write: a test without a hash, or a hash not 32 bytes long; upload: `sha` longer than
    /// 32 bytes.
    case invalidHash
    case invalidFlashAddress
    case versionGetFailed
    /// Upload with `upgrade`: the running image is as new or newer.
    case currentVersionIsNewer
    /// State write: another image is already pending.
    case imageAlreadyPending
    case invalidImageVectorTable
    /// Upload: `len` is larger than the slot.
    case invalidImageTooLarge
    /// Upload: data past `len`.
    case invalidImageDataOverrun
    case imageConfirmationDenied
    /// State write: a test of the running image.
    case imageSettingTestToActiveDenied
    case activeSlotNotKnown

    /// The name in Zephyr's sources, e.g. `IMG_MGMT_ERR_NO_FREE_SLOT`.
    public var name: String {
        let names = [
            "OK", "UNKNOWN", "FLASH_CONFIG_QUERY_FAIL", "NO_IMAGE", "NO_TLVS", "INVALID_TLV",
            "TLV_MULTIPLE_HASHES_FOUND", "TLV_INVALID_SIZE", "HASH_NOT_FOUND", "NO_FREE_SLOT",
            "FLASH_OPEN_FAILED", "FLASH_READ_FAILED", "FLASH_WRITE_FAILED", "FLASH_ERASE_FAILED",
            "INVALID_SLOT", "NO_FREE_MEMORY", "FLASH_CONTEXT_ALREADY_SET", "FLASH_CONTEXT_NOT_SET",
            "FLASH_AREA_DEVICE_NULL", "INVALID_PAGE_OFFSET", "INVALID_OFFSET", "INVALID_LENGTH",
            "INVALID_IMAGE_HEADER", "INVALID_IMAGE_HEADER_MAGIC", "INVALID_HASH", "INVALID_FLASH_ADDRESS",
            "VERSION_GET_FAILED", "CURRENT_VERSION_IS_NEWER", "IMAGE_ALREADY_PENDING",
            "INVALID_IMAGE_VECTOR_TABLE", "INVALID_IMAGE_TOO_LARGE", "INVALID_IMAGE_DATA_OVERRUN",
            "IMAGE_CONFIRMATION_DENIED", "IMAGE_SETTING_TEST_TO_ACTIVE_DENIED", "ACTIVE_SLOT_NOT_KNOWN",
        ]
        return "IMG_MGMT_ERR_" + names[rawValue]
    }

    public var description: String { "\(rawValue) (\(name))" }
}
