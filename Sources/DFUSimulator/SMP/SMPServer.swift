import MCUmgr

/// The MCUmgr server of the simulated Zephyr application: the OS group (echo, reset, MCUmgr
/// parameters) and the image group (state, upload, erase). Its value is RAM: the upload in
/// progress. Each request is handled at once; the flash work it causes decides when the answer
/// is ready.
struct SMPServer: Sendable {
    /// What one request made the server do.
    struct Outcome {
        var answer: SMPAnswer
        var flash = SMPFlashWork()
        /// The device reboots once the answer is out (OS reset).
        var resets = false
        /// It reboots into the firmware loader (`boot_mode` 1 on a Bare Metal device).
        var startsLoader = false
        /// The storage partition, the application's settings, was erased (basic group).
        var erasesSettings = false
    }

    let configuration: SMPDeviceConfiguration
    let timing: SimulationTiming
    /// Whether this is nRF Connect SDK Bare Metal's firmware loader rather than an application.
    let isFirmwareLoader: Bool
    /// The upload in progress.
    var inProgress: SMPImageUpload?
    /// Bytes the firmware loader's image buffer takes now, when it writes through one
    /// (`SMPDeviceConfiguration.loaderImageBuffer`); set before each request.
    var imageBufferFree: Int?

    init(configuration: SMPDeviceConfiguration, timing: SimulationTiming, isFirmwareLoader: Bool = false) {
        self.configuration = configuration
        self.timing = timing
        self.isFirmwareLoader = isFirmwareLoader
    }

    /// Whether the image group answers `command` (`write`: a state write, upload or erase): a
    /// Bare Metal application has no image group, its firmware loader only state read and
    /// upload (sdk-nrf-bm `img_mgmt_handlers[]`).
    private func offersImageCommand(_ command: UInt8, write: Bool) -> Bool {
        guard configuration.installation == .firmwareLoader else { return true }
        return isFirmwareLoader && (command == 1 || (command == 0 && !write))
    }

    /// Handles one request frame (Zephyr `smp_handle_single_payload`): unknown groups, commands
    /// and operations are `MGMT_ERR_ENOTSUP`, a map that does not decode `MGMT_ERR_EINVAL`.
    mutating func handle(_ header: SMPHeader, payload: [UInt8], slots: inout MCUbootFlash) -> Outcome {
        let isRead = header.operation == .read
        guard isRead || header.operation == .write else {
            return Outcome(answer: .mcumgrError(.notSupported))
        }
        do throws(SMPRequestInvalid) {
            let map = try SMPRequestMap(payload: payload)
            switch (header.group, header.command, isRead) {
            case (.os, 0, false):  // echo
                return Outcome(answer: .success(["r": .text(try map.text("d") ?? "")]))
            case (.os, 5, false):  // reset
                _ = try map.bool("force")
                let bootMode = try map.unsigned("boot_mode")
                let startsLoader = bootMode == 1 && configuration.installation == .firmwareLoader
                return Outcome(answer: .success([:]), resets: true, startsLoader: startsLoader)
            case (.os, 6, true):  // MCUmgr parameters
                return Outcome(
                    answer: .success([
                        "buf_size": CBORValue(configuration.bufferSize),
                        "buf_count": CBORValue(configuration.bufferCount),
                    ]))
            case (.os, 8, true):  // bootloader information
                return Outcome(answer: bootloaderInfo(query: try map.text("query")))
            case (.zephyrBasic, 0, false):  // erase storage
                guard configuration.eraseStorage else { return Outcome(answer: .mcumgrError(.notSupported)) }
                var outcome = Outcome(answer: .success([:]), erasesSettings: true)
                outcome.flash.eraseBytes = configuration.storageSize
                return outcome
            case (.image, let command, _) where !offersImageCommand(command, write: !isRead):
                return Outcome(answer: .mcumgrError(.notSupported))
            case (.image, 0, true):  // state read
                return Outcome(answer: .success(slots.imageList))
            case (.image, 0, false):  // state write
                return Outcome(answer: try stateWrite(map, slots: &slots))
            case (.image, 1, false):  // upload
                var outcome = Outcome(answer: .success([:]))
                outcome.answer = upload(try SMPUploadRequest(map), slots: &slots, work: &outcome.flash)
                return outcome
            case (.image, 5, false):  // erase
                var outcome = Outcome(answer: .success([:]))
                outcome.answer = try erase(map, slots: &slots, work: &outcome.flash)
                return outcome
            default:
                return Outcome(answer: .mcumgrError(.notSupported))
            }
        } catch {
            return Outcome(answer: .mcumgrError(.invalid))
        }
    }

    /// `{hash?, confirm?}` (`img_mgmt_state_write`): answered with the image list. Without a
    /// hash it confirms the running application.
    private func stateWrite(_ map: SMPRequestMap, slots: inout MCUbootFlash) throws(SMPRequestInvalid)
        -> SMPAnswer
    {
        let hash = try map.bytes("hash") ?? []
        let confirm = try map.bool("confirm") ?? false
        var location = (image: 0, slot: 0)
        if hash.isEmpty {
            guard confirm else { return .imageError(.invalidHash) }
        } else {
            guard hash.count == slots.hashAlgorithm.byteCount else { return .imageError(.invalidHash) }
            guard let found = slots.location(of: hash) else { return .imageError(.hashNotFound) }
            location = found
        }
        if let refusal = slots.setNextBoot(image: location.image, slot: location.slot, confirm: confirm) {
            return .imageError(refusal)
        }
        return .success(slots.imageList)
    }

    /// `{slot?}` (`img_mgmt_erase`): a slot number counted over all images (image i has slots
    /// 2i and 2i + 1), the application's secondary slot unless told otherwise; a running slot or
    /// one in use is refused, an erased one costs nothing; the upload in progress is forgotten.
    private mutating func erase(
        _ map: SMPRequestMap, slots flash: inout MCUbootFlash, work: inout SMPFlashWork
    )
        throws(SMPRequestInvalid) -> SMPAnswer
    {
        let slot = Int(clamping: try map.unsigned("slot") ?? 1)
        guard flash.images.indices.contains(slot / 2) else { return .imageError(.invalidSlot) }
        let slots = flash.images[slot / 2]
        guard slot % 2 == slots.otherSlot else { return .imageError(.noFreeSlot) }  // a running image
        if slots.secondary != nil && slots.secondaryInUse { return .imageError(.noFreeSlot) }
        if !slots.secondaryBytes.isEmpty { work.eraseBytes = configuration.slotSize }
        flash.images[slot / 2].eraseSecondary()
        inProgress = nil
        return .success([:])
    }
}
