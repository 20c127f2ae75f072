import GATT

/// The Nordic DFU services and characteristics a device exposes, and what they say about it
/// (docs/nordic-dfu-protocol.md §0.1 and §1.2).
enum DFUServiceDetection {
    static let secureService = BluetoothUUID(short: 0xFE59)
    static let legacyService = BluetoothUUID("00001530-1212-efde-1523-785feabcd123")!
    static let legacyPacket = BluetoothUUID("00001532-1212-efde-1523-785feabcd123")!
    static let legacyVersion = BluetoothUUID("00001534-1212-efde-1523-785feabcd123")!
    static let secureControlPoint = BluetoothUUID("8ec90001-f315-4f60-9fb8-838830daea50")!
    static let securePacket = BluetoothUUID("8ec90002-f315-4f60-9fb8-838830daea50")!
    static let buttonlessWithoutBonds = BluetoothUUID("8ec90003-f315-4f60-9fb8-838830daea50")!
    static let buttonlessWithBonds = BluetoothUUID("8ec90004-f315-4f60-9fb8-838830daea50")!
    static let experimentalButtonless = BluetoothUUID("8e400001-f315-4f60-9fb8-838830daea50")!
    /// Generic Access and Generic Attribute, present on every device.
    static let genericServices: Set<BluetoothUUID> = [
        BluetoothUUID(short: 0x1800), BluetoothUUID(short: 0x1801),
    ]

    /// `secure`, `legacy` or `nil`, from the service UUIDs a device advertises.
    static func advertisedProtocol(_ services: [BluetoothUUID]) -> String? {
        if services.contains(secureService) { return "secure" }
        if services.contains(legacyService) { return "legacy" }
        return nil
    }

    /// What `info` reports about DFU.
    struct Report: Equatable {
        var protocolName: String?
        var mode: String?
        var buttonless: String?
        var legacyVersion: String?
    }

    /// Decides protocol, mode and buttonless kind from the services, in the order Nordic's
    /// Android library checks them. `legacyVersion` is the value of the legacy DFU Version
    /// characteristic when the device has one (2 bytes: minor, major).
    static func report(services: [GATTService], legacyVersion: [UInt8]?) -> Report {
        let secure = services.first { $0.uuid == secureService }
        func secureHas(_ uuid: BluetoothUUID) -> Bool { secure?.characteristic(uuid) != nil }
        if secureHas(buttonlessWithBonds) {
            return Report(protocolName: "secure", mode: "application", buttonless: "with_bonds")
        }
        if secureHas(buttonlessWithoutBonds) {
            return Report(protocolName: "secure", mode: "application", buttonless: "without_bonds")
        }
        if secureHas(secureControlPoint) && secureHas(securePacket) {
            return Report(protocolName: "secure", mode: "bootloader")
        }
        if let legacy = services.first(where: { $0.uuid == legacyService }) {
            return legacyReport(legacy, services: services, version: legacyVersion)
        }
        if services.contains(where: { $0.uuid == experimentalButtonless }) {
            return Report(protocolName: "secure", mode: "application", buttonless: "experimental")
        }
        return Report()
    }

    private static func legacyReport(_ legacy: GATTService, services: [GATTService], version: [UInt8]?)
        -> Report
    {
        if let version, version.count == 2 {
            let text = "\(version[1]).\(version[0])"
            // 0.1: an application with the legacy buttonless jump; 0.5 and later: the bootloader
            let inApplication = version[1] == 0 && version[0] == 1
            return Report(
                protocolName: "legacy", mode: inApplication ? "application" : "bootloader",
                buttonless: inApplication ? "legacy" : nil, legacyVersion: text)
        }
        // no version characteristic (SDK before 7): guess as the reference libraries do
        let others = services.filter { !genericServices.contains($0.uuid) && $0.uuid != legacyService }
        if legacy.characteristic(legacyPacket) == nil || !others.isEmpty {
            return Report(protocolName: "legacy", mode: "application", buttonless: "legacy")
        }
        return Report(protocolName: "legacy", mode: "bootloader")
    }
}
