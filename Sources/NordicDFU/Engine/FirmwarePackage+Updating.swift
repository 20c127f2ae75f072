import GATT
import MCUmgr

extension FirmwarePackage {
    /// The updater of this package's family for `device`.
    public func updater(central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions)
        -> any FirmwareUpdater
    {
        switch self {
        case .nordic(let package):
            DFUUpdater(package: package, central: central, device: device, options: options)
        case .mcuboot(let package):
            SMPUpdater(package: package, central: central, device: device, options: options)
        }
    }

    /// The parts an update sends at most: Nordic images, or MCUboot images.
    public var partCount: Int {
        switch self {
        case .nordic(let package): package.images.count
        case .mcuboot(let package): package.images.count
        }
    }

    /// The package without its first `count` parts: what a retry sends after the device took
    /// them (`DFUResult.partsActivated`).
    public func droppingParts(_ count: Int) -> FirmwarePackage {
        switch self {
        case .nordic(let package): .nordic(package.droppingParts(count))
        case .mcuboot(let package):
            .mcuboot(MCUbootPackage(name: package.name, images: Array(package.images.dropFirst(count))))
        }
    }

    /// The application version the package installs, as a device reports it in its Firmware
    /// Revision String: a Nordic application's init packet version, or the first MCUboot
    /// image's `major.minor.revision`; nil when it has none or it cannot be written so.
    public var applicationVersion: DFUFirmwareVersion? {
        switch self {
        case .nordic(let package):
            package.applicationVersion.flatMap { $0 == .max ? nil : DFUFirmwareVersion(number: $0) }
        case .mcuboot(let package):
            package.images.first.flatMap { image in
                let version = image.image.header.version
                return DFUFirmwareVersion("\(version.major).\(version.minor).\(version.revision)")
            }
        }
    }

    /// The protocol family the package is for.
    public var dfuProtocol: DFUProtocol {
        switch self {
        case .nordic(let package): package.format
        case .mcuboot: .smp
        }
    }
}
