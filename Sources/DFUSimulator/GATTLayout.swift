import GATT
import MCUmgr
import NordicDFU

/// A characteristic as the device declares it.
struct CharacteristicSpec: Sendable {
    var uuid: BluetoothUUID
    var properties: CharacteristicProperties
}

/// A primary service as the device declares it.
struct ServiceSpec: Sendable {
    var uuid: BluetoothUUID
    var characteristics: [CharacteristicSpec]
}

/// The GATT databases of the firmware a simulated device can run (protocol doc §0.1).
enum GATTLayout {
    private static let uuids = DFUUUIDs()

    static let deviceInformation = ServiceSpec(
        uuid: DeviceInformationUUIDs.service,
        characteristics: [
            CharacteristicSpec(uuid: DeviceInformationUUIDs.firmwareRevision, properties: .read)
        ])

    static let secureBootloader = [
        ServiceSpec(
            uuid: uuids.secureService,
            characteristics: [
                CharacteristicSpec(uuid: uuids.secureControlPoint, properties: [.write, .notify]),
                CharacteristicSpec(uuid: uuids.securePacket, properties: .writeWithoutResponse),
            ])
    ]

    static let legacyDFUService = ServiceSpec(
        uuid: uuids.legacyService,
        characteristics: [
            CharacteristicSpec(uuid: uuids.legacyControlPoint, properties: [.write, .notify]),
            CharacteristicSpec(uuid: uuids.legacyPacket, properties: .writeWithoutResponse),
            CharacteristicSpec(uuid: uuids.legacyVersion, properties: .read),
        ])

    static let legacyBootloader = [legacyDFUService]

    static func secureApplication(bonded: Bool) -> [ServiceSpec] {
        let buttonless = bonded ? uuids.buttonlessWithBonds : uuids.buttonlessWithoutBonds
        return [
            deviceInformation,
            ServiceSpec(
                uuid: uuids.secureService,
                characteristics: [CharacteristicSpec(uuid: buttonless, properties: [.write, .indicate])]),
        ]
    }

    static let legacyApplication = [deviceInformation, legacyDFUService]

    /// Zephyr's SMP service (`smp_bt.c`): one characteristic, write without response and notify.
    static let smpApplication = [
        deviceInformation,
        ServiceSpec(
            uuid: SMPUUIDs.service,
            characteristics: [
                CharacteristicSpec(
                    uuid: SMPUUIDs.characteristic, properties: [.writeWithoutResponse, .notify])
            ]),
    ]
}
