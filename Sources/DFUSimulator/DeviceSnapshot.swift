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
    /// is a 4 KiB stand-in.
    public var images: [InstalledImageType: InstalledImage]
    /// How many times the bootloader activated an image.
    public var activations: Int
    /// The Firmware Revision String the application reports.
    public var firmwareRevision: String
    /// Connection attempts so far, refused ones included.
    public var connectionAttempts: Int

    init(_ device: SimulatedDevice) {
        address = device.address.description
        name = device.advertisedName
        mode = device.firmware.isBootloader ? .bootloader : .application
        images = device.core.banks.installed
        activations = device.core.banks.activations
        firmwareRevision = device.core.firmwareRevision
        connectionAttempts = device.core.connectAttempts
    }
}
