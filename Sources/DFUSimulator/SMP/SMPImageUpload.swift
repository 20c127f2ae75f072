import Crypto
import MCUmgr

/// The image group's upload state: RAM, lost by every reset (Zephyr `g_img_mgmt_state`).
struct SMPImageUpload: Sendable {
    /// The image number whose secondary slot it writes.
    let image: Int
    /// Bytes written so far: the offset the next chunk must carry.
    var offset: Int
    /// `len` of the first chunk.
    let size: Int
    /// `sha` of the first chunk (any length up to 32; empty when not sent). A first chunk with
    /// the same non-empty `sha` resumes this upload.
    let sha: [UInt8]
}

/// One upload request's fields (`img_mgmt_upload_req`).
struct SMPUploadRequest {
    /// `image` of the first chunk: which image's secondary slot it writes (0 when left out).
    var image: Int
    var offset: Int?
    var data: [UInt8]
    var length: Int?
    var sha: [UInt8]
    var upgrade: Bool

    init(_ map: SMPRequestMap) throws(SMPRequestInvalid) {
        image = Int(clamping: try map.unsigned("image") ?? 0)
        offset = try map.unsigned("off").map { Int(clamping: $0) }
        data = try map.bytes("data") ?? []
        length = try map.unsigned("len").map { Int(clamping: $0) }
        sha = try map.bytes("sha") ?? []
        upgrade = try map.bool("upgrade") ?? false
    }
}

/// What handling an upload chunk costs the device's flash.
struct SMPFlashWork {
    var eraseBytes = 0
    var writeBytes = 0
    /// The written bytes went into the firmware loader's image buffer: the answer does not wait
    /// for their flash write.
    var buffered = false
}

extension SMPServer {
    /// An upload chunk, checked in Zephyr's order (`img_mgmt_upload_inspect`, `img_mgmt_upload`).
    /// A refused chunk also forgets the upload in progress.
    mutating func upload(
        _ request: SMPUploadRequest, slots flash: inout MCUbootFlash, work: inout SMPFlashWork
    )
        -> SMPAnswer
    {
        // with one updatable image the number is not looked at (`img_mgmt_get_unused_slot_area_id`)
        let number =
            request.offset == 0 ? (flash.images.count == 1 ? 0 : request.image) : inProgress?.image ?? 0
        guard flash.images.indices.contains(number) else {
            inProgress = nil
            return .imageError(.noFreeSlot)
        }
        return upload(request, image: number, slots: &flash.images[number], work: &work)
    }

    /// An upload chunk for image `number`'s secondary slot.
    private mutating func upload(
        _ request: SMPUploadRequest, image number: Int, slots: inout MCUbootSlots, work: inout SMPFlashWork
    ) -> SMPAnswer {
        switch inspect(request, slots: slots) {
        case .refuse(let code):
            inProgress = nil
            return .imageError(code)
        case .answerOffset:
            return .success(["off": CBORValue(inProgress?.offset ?? 0)])
        case .proceed:
            break
        }
        if request.offset == 0 {
            inProgress = SMPImageUpload(image: number, offset: 0, size: request.length!, sha: request.sha)
            if configuration.imageCheck, request.sha.count == SHA256.byteCount,
                slotHolds(sha: request.sha, size: request.length!, slots: slots)
            {
                inProgress = nil
                return .success(["off": CBORValue(request.length!), "match": true])
            }
            if !slots.secondaryBytes.isEmpty {
                // The image's pages and the page holding the trailer (`img_mgmt_erase_image_data`).
                work.eraseBytes = min(request.length! + timing.pageSize, configuration.slotSize)
                slots.eraseSecondary()
            }
        }
        guard var current = inProgress else { return .mcumgrError(.unknown) }
        if let free = imageBufferFree {
            // sdk-nrf-bm `img_mgmt_write_image_data`: a full ring is `MGMT_ERR_EBUSY`, answered
            // with success and the offset unchanged
            guard request.data.count <= free else { return .success(["off": CBORValue(current.offset)]) }
            work.buffered = work.eraseBytes == 0  // the first chunk's erase is waited for
        }
        slots.writeSecondary(request.data, at: current.offset)
        work.writeBytes = request.data.count
        current.offset += request.data.count
        var answer: [CBORValue: CBORValue] = ["off": CBORValue(current.offset)]
        if current.offset == current.size {
            if configuration.imageCheck {
                answer["match"] = .bool(Array(SHA256.hash(data: slots.secondaryBytes)) == current.sha)
            }
            slots.readSecondary()
            inProgress = nil
        } else {
            inProgress = current
        }
        return .success(answer)
    }

    private enum Inspection {
        case refuse(ImageManagementReturnCode)
        /// Not written: the answer says where the upload stands (a chunk at another offset, or a
        /// first chunk resuming the upload in progress).
        case answerOffset
        case proceed
    }

    private func inspect(_ request: SMPUploadRequest, slots: MCUbootSlots) -> Inspection {
        guard let offset = request.offset else { return .refuse(.invalidOffset) }
        guard offset == 0 else {
            guard let upload = inProgress, offset == upload.offset else { return .answerOffset }
            return offset + request.data.count > upload.size ? .refuse(.invalidImageDataOverrun) : .proceed
        }
        guard request.data.count >= MCUbootHeader.size else { return .refuse(.invalidImageHeader) }
        guard let length = request.length else { return .refuse(.invalidLength) }
        // the image group reads the header; it refuses only a wrong magic
        guard let header = try? MCUbootHeader(bytes: request.data, file: "upload") else {
            return .refuse(.invalidImageHeaderMagic)
        }
        guard request.sha.count <= SHA256.byteCount else { return .refuse(.invalidHash) }
        if !request.sha.isEmpty, let upload = inProgress, upload.sha == request.sha { return .answerOffset }
        if slots.secondaryInUse { return .refuse(.noFreeSlot) }
        if length > configuration.slotSize { return .refuse(.invalidImageTooLarge) }
        // `CONFIG_MCUMGR_GRP_IMG_REJECT_DIRECT_XIP_MISMATCHED_SLOT`: an image linked for one slot
        if header.flags.contains(.romFixed),
            header.loadAddress != configuration.slotAddress(2 * slots.image + slots.otherSlot)
        {
            return .refuse(.invalidFlashAddress)
        }
        if request.upgrade, !Self.isNewer(header.version, than: slots.primary.version) {
            return .refuse(.currentVersionIsNewer)
        }
        return .proceed
    }

    /// Zephyr's `img_mgmt_vercmp`: major, minor, revision; the build number does not count.
    private static func isNewer(_ candidate: MCUbootVersion, than running: MCUbootVersion) -> Bool {
        (candidate.major, candidate.minor, candidate.revision) > (
            running.major, running.minor, running.revision
        )
    }

    /// `flash_img_check`: the slot's first `size` bytes hash to `sha`.
    private func slotHolds(sha: [UInt8], size: Int, slots: MCUbootSlots) -> Bool {
        slots.secondaryBytes.count >= size && Array(SHA256.hash(data: slots.secondaryBytes[..<size])) == sha
    }
}
