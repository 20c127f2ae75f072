/// What a simulated device holds and runs, as the CLI contract's `simulator` event reports it.
public struct DeviceSnapshot: Equatable, Sendable {
    /// What the device runs; raw values are the contract's `mode` strings.
    public enum Mode: String, Sendable {
        /// It booted a valid application.
        case application
        /// It waits in its bootloader for an image.
        case bootloader
    }

    /// The address and name it advertises now.
    public var address: String
    public var name: String
    public var mode: Mode
    /// One entry per installed image type; the factory application of an application-kind device
    /// is a 4 KiB stand-in. An SMP device's `application` is the file in its primary slot.
    public var images: [InstalledImageType: InstalledImage]
    /// How many times the bootloader activated an image.
    public var activations: Int
    /// The Firmware Revision String the application reports.
    public var firmwareRevision: String
    /// Connection attempts so far, refused ones included.
    public var connectionAttempts: Int
    /// An SMP device's MCUboot slots as its image list shows them; empty for the nRF5 kinds.
    public var slots: [MCUbootSlotState]
    /// How many times an SMP device's settings were erased (erase storage).
    public var settingsErasures: Int
    /// The image hash of what a simulated nRF5340's network core runs, which its image list
    /// does not show; nil without a network core.
    public var networkCoreHash: [UInt8]?
    /// Whether it holds the central's bond (`LinkSecurity`).
    public var holdsBond: Bool

    init(_ device: SimulatedDevice) {
        address = device.address.description
        name = device.advertisedName
        mode = device.firmware.isBootloader ? .bootloader : .application
        images = device.core.banks.installed
        slots = device.core.mcuboot?.states ?? []
        if let mcuboot = device.core.mcuboot {
            // The file in the primary slot: its SHA-256 is the uploaded file's.
            images = [
                .application: InstalledImage(bytes: mcuboot.application.primaryBytes[...], version: nil)
            ]
            networkCoreHash =
                mcuboot.images.first(where: \.isNetworkCore)?.primary.hash ?? mcuboot.onePairNetworkCoreHash
        }
        activations = device.core.banks.activations
        firmwareRevision = device.core.firmwareRevision
        connectionAttempts = device.core.connectAttempts
        settingsErasures = device.core.settingsErasures
        holdsBond = device.core.holdsBond
    }
}
