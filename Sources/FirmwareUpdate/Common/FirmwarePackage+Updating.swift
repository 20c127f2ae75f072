import GATT
import NordicDFU

extension FirmwarePackage {
    /// The updater of this package's family for `device`.
    public func updater(central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions)
        -> any FirmwareUpdater
    {
        contents.updater(central: central, device: device, options: options)
    }

    /// The parts an update sends at most: Nordic images, or MCUboot images.
    public var partCount: Int { contents.partCount }

    /// The package without its first `count` parts: what a retry sends after the device took
    /// them (`DFUResult.partsActivated`).
    public func droppingParts(_ count: Int) -> FirmwarePackage { contents.remainder(afterParts: count) }

    /// The application version the package installs, as a device reports it in its Firmware
    /// Revision String: a Nordic application's init packet version, or the first MCUboot
    /// image's `major.minor.revision`; nil when it has none or it cannot be written so.
    public var applicationVersion: DFUFirmwareVersion? { contents.installedVersion }

    /// The protocol family the package is for.
    public var dfuProtocol: DFUProtocol { contents.dfuProtocol }

    /// Throws, before any connection, for a package its family's devices would refuse only after
    /// it was sent (a Nordic init packet hashed with anything but SHA-256). Every command that
    /// updates devices calls it.
    public func checkDevicesCanVerify() throws(DFUPackageError) { try contents.checkDevicesCanVerify() }
}
