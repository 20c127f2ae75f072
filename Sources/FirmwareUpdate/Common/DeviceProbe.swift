import GATT
import NordicDFU

/// One look at a connected device: what it offers for DFU and the Device Information strings it
/// reports. The one probe that the engine, `dfu-update info` and the fleet read devices with, so
/// that they agree about a device. Nothing on the device changes: an SMP device is asked for its
/// bootloader and for its image list, which only read.
public struct DeviceProbe: Sendable, Equatable {
    public var address: BluetoothAddress
    public var name: String?
    public var services: [BluetoothUUID]
    /// What the device offers for DFU; nil when nothing.
    public var support: DFUDeviceSupport?
    /// The version the device reports: `DFUOptions.versionCharacteristic`, by default the
    /// Firmware Revision String (0x2A26), or for an SMP device without it the running image's
    /// version from its image list; nil without either (a bootloader has none).
    public var firmwareRevision: String?
    /// The Hardware Revision String (0x2A27).
    public var hardwareRevision: String?
    /// The Software Revision String (0x2A28).
    public var softwareRevision: String?
    /// An SMP device's bootloader, when it tells (OS group bootloader information).
    public var bootloader: SMPBootloader?
    /// An SMP device's image layout, as its list shows it; nil for other devices or no list.
    public var imageLayout: SMPImageLayout?
    /// Whether the probe subscribed to one of the device's notifications (SMP's requests are
    /// answered in them). bluetoothd gives a subscription up only once it sees the link close,
    /// so a link the probe leaves up is not one an update that subscribes again should take over.
    public var subscribed = false

    /// Reads a connected `peripheral`, each read bounded by `timeout`; `options` name the
    /// version characteristic and the DFU services (custom UUIDs). Throws the transport's
    /// `GATTError`.
    public static func read(
        _ peripheral: any GATTPeripheral, options: DFUOptions = DFUOptions(), timeout: Duration
    ) async throws -> DeviceProbe {
        try await read(peripheral, options: options, families: options.deviceFamilies, timeout: timeout)
    }

    /// Reads `peripheral` as a device of the first of `families` its services offer, with that
    /// family's own reads after the version and before the other Device Information strings.
    static func read(
        _ peripheral: any GATTPeripheral, options: DFUOptions = DFUOptions(), families: [any DeviceFamily],
        timeout: Duration
    ) async throws -> DeviceProbe {
        let services = try await peripheral.services()
        let detected = try await DFUDeviceSupport.detect(in: services, families: families, timeout: timeout)
        var probe = DeviceProbe(
            address: peripheral.address, name: peripheral.name, services: services.map(\.uuid),
            support: detected?.support,
            firmwareRevision: try await text(
                of: options.versionCharacteristic, in: services, timeout: timeout))
        try await detected?.family.read(into: &probe, services: services, timeout: timeout)
        probe.hardwareRevision = try await text(
            of: DeviceInformationUUIDs.hardwareRevision, in: services, timeout: timeout)
        probe.softwareRevision = try await text(
            of: DeviceInformationUUIDs.softwareRevision, in: services, timeout: timeout)
        return probe
    }

    /// The value of the characteristic `uuid` as Device Information strings are written: UTF-8,
    /// up to a terminating NUL, without the NULs and spaces some firmware pads it with. Nil when
    /// no service has it.
    static func text(of uuid: BluetoothUUID, in services: [GATTService], timeout: Duration) async throws
        -> String?
    {
        guard let characteristic = services.lazy.compactMap({ $0.characteristic(uuid) }).first else {
            return nil
        }
        let bytes = try await characteristic.read(timeout: timeout)
        let padding: Set<UInt8> = [0x00, 0x20, 0x09, 0x0A, 0x0D]
        let text = bytes.drop { padding.contains($0) }.prefix { $0 != 0 }
        let end = text.lastIndex { !padding.contains($0) }.map { $0 + 1 } ?? text.startIndex
        return String(decoding: text[text.startIndex..<end], as: UTF8.self)
    }
}
