import NordicDFU

/// The checks an SDK 15–17 Secure bootloader makes when an init command is executed, in its
/// order (`nrf_dfu_validation_init_cmd_execute`: decode, `nrf_dfu_validation_prevalidate` —
/// signature, then `nrf_dfu_ver_validation_check`: type, hash type, hw version, sd_req, version —
/// then `update_data_size_get` and `update_data_addr_get`). A release build: `is_debug` does not
/// skip the version checks.
struct SecureInitCheck {
    /// An accepted init command: what the data that follows must be.
    struct Accepted: Sendable {
        var bytes: [UInt8]
        var packet: SecureInitPacket
        var layout: ImageLayout
        /// SHA-256 the image must have, in digest order.
        var digest: [UInt8]
    }

    enum Verdict {
        case accepted(Accepted)
        /// The outcome the Execute is answered with.
        case refused(SecureDFUResponse.Outcome)
    }

    static func check(_ bytes: [UInt8], on core: DeviceCore) -> Verdict {
        let packet: SecureInitPacket
        do {
            packet = try SecureInitPacket.decode(bytes)
        } catch {
            return .refused(.failure(.invalidObject, extended: nil))
        }
        if let key = core.configuration.publicKey {
            guard let signature = packet.signature else { return extended(.signatureMissing) }
            guard signature.type == .ecdsaP256SHA256 else { return extended(.wrongSignatureType) }
            guard packet.signatureVerifies(in: bytes, with: key) else {
                return .refused(.failure(.invalidObject, extended: nil))
            }
        }
        guard packet.type != .externalApplication else { return extended(.initCommandInvalid) }
        guard packet.hashType == .sha256, packet.hash.count == 32 else { return extended(.wrongHashType) }
        guard packet.hwVersion == core.configuration.hardwareVersion else {
            return extended(.hardwareVersionFailure)
        }
        guard softDeviceRequirementMet(packet, installed: core.softDeviceID) else {
            return extended(.softDeviceVersionFailure)
        }
        guard versionAccepted(packet, on: core) else { return extended(.firmwareVersionFailure) }
        guard let layout = layout(of: packet) else { return extended(.initCommandInvalid) }
        // No room for the update is plain Insufficient Resources (`update_data_addr_get`).
        guard layout.total <= core.configuration.bankCapacity else {
            return .refused(.failure(.insufficientResources, extended: nil))
        }
        return .accepted(
            Accepted(bytes: bytes, packet: packet, layout: layout, digest: packet.hash.reversed()))
    }

    private static func extended(_ error: SecureDFUExtendedError) -> Verdict {
        .refused(.failure(.extendedError, extended: error))
    }

    /// The parts the image holds, from the size fields its type needs; nil if one is missing or
    /// the type is not one this bootloader installs.
    private static func layout(of packet: SecureInitPacket) -> ImageLayout? {
        let sd = Int(packet.sdSize)
        let bl = Int(packet.blSize)
        let app = Int(packet.appSize)
        switch packet.type {
        case .application where app > 0: return ImageLayout(application: app)
        case .softdevice where sd > 0: return ImageLayout(softdevice: sd)
        case .bootloader where bl > 0: return ImageLayout(bootloader: bl)
        case .softdeviceBootloader where sd > 0 && bl > 0: return ImageLayout(softdevice: sd, bootloader: bl)
        default: return nil
        }
    }

    /// `sd_req` must name the installed SoftDevice or 0xFFFE (any); an application may also say
    /// 0x00 (it needs no SoftDevice).
    private static func softDeviceRequirementMet(_ packet: SecureInitPacket, installed: UInt16) -> Bool {
        packet.sdReq.contains(UInt32(installed)) || packet.sdReq.contains(0xFFFE)
            || (packet.type == .application && packet.sdReq.first == 0)
    }

    /// Applications may not go below the installed version (the same one is accepted, as SDK 17's
    /// `NRF_DFU_APP_ACCEPT_SAME_VERSION`); bootloaders must go above; SoftDevices are not checked.
    private static func versionAccepted(_ packet: SecureInitPacket, on core: DeviceCore) -> Bool {
        switch packet.type {
        case .application: packet.fwVersion >= core.applicationVersion
        case .bootloader, .softdeviceBootloader: packet.fwVersion > core.bootloaderVersion
        case .softdevice, .externalApplication: true
        }
    }
}
