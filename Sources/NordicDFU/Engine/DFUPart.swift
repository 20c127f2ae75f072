/// Which DFU protocol a package speaks; the device must speak the same.
enum DFUProtocolKind: Sendable, Equatable, CustomStringConvertible {
    case secure
    case legacy

    var description: String { self == .secure ? "Secure DFU" : "Legacy DFU" }
}

/// One image the engine sends in one DFU run: the device resets after each part.
struct DFUPart: Sendable {
    enum Kind: Sendable, Equatable {
        case softdevice
        case bootloader
        case softdeviceBootloader
        case application
    }

    var kind: Kind
    var firmware: [UInt8]
    var initPacket: [UInt8]?
    /// SoftDevice and bootloader sizes of a combined SD+BL image (the legacy size packet needs them).
    var softdeviceSize: UInt32 = 0
    var bootloaderSize: UInt32 = 0

    /// The Legacy Start DFU image type of this part.
    var legacyImageType: LegacyImageType {
        switch kind {
        case .softdevice: .softdevice
        case .bootloader: .bootloader
        case .softdeviceBootloader: [.softdevice, .bootloader]
        case .application: .application
        }
    }

    /// The Legacy size packet of this part.
    var legacySizes: LegacyImageSizes {
        let size = UInt32(firmware.count)
        switch kind {
        case .softdevice: return LegacyImageSizes(softdevice: size)
        case .bootloader: return LegacyImageSizes(bootloader: size)
        case .application: return LegacyImageSizes(application: size)
        case .softdeviceBootloader:
            guard softdeviceSize + bootloaderSize == size else {
                return LegacyImageSizes(softdevice: size - min(size, bootloaderSize), bootloader: bootloaderSize)
            }
            return LegacyImageSizes(softdevice: softdeviceSize, bootloader: bootloaderSize)
        }
    }
}

/// What the engine sends: the parts in order (system image first, application last), the
/// protocol, and the version the application part carries.
struct DFUPlan: Sendable {
    var protocolKind: DFUProtocolKind
    var parts: [DFUPart]
    /// The application's version from the package, if it has one.
    var applicationVersion: DFUFirmwareVersion?

    var totalBytes: Int { parts.reduce(0) { $0 + $1.firmware.count } }
}
