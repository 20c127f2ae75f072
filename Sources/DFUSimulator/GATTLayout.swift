import GATT
import MCUmgr
import NordicDFU

/// A characteristic as the device declares it.
struct CharacteristicSpec: Sendable {
    var uuid: BluetoothUUID
    var properties: CharacteristicProperties
    /// Writes and the CCCD need an encrypted link (the SoftDevice's security mode 1 level 2,
    /// `SEC_JUST_WORKS`); on a plain link the device answers ATT insufficient encryption.
    var requiresEncryption = false
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

    /// With `NRF_DFU_BLE_REQUIRES_BONDS` both characteristics need an encrypted link
    /// (`nrf_dfu_ble.c`: `write_perm` level 2 instead of 1).
    static func secureBootloader(requiringBonds: Bool) -> [ServiceSpec] {
        [
            ServiceSpec(
                uuid: uuids.secureService,
                characteristics: [
                    CharacteristicSpec(
                        uuid: uuids.secureControlPoint, properties: [.write, .notify],
                        requiresEncryption: requiringBonds),
                    CharacteristicSpec(
                        uuid: uuids.securePacket, properties: .writeWithoutResponse,
                        requiresEncryption: requiringBonds),
                ])
        ]
    }

    static let legacyDFUService = ServiceSpec(
        uuid: uuids.legacyService,
        characteristics: [
            CharacteristicSpec(uuid: uuids.legacyControlPoint, properties: [.write, .notify]),
            CharacteristicSpec(uuid: uuids.legacyPacket, properties: .writeWithoutResponse),
            CharacteristicSpec(uuid: uuids.legacyVersion, properties: .read),
        ])

    static let legacyBootloader = [legacyDFUService]

    /// The with-bonds characteristic (`ble_dfu_bonded.c`) takes writes and its CCCD on an
    /// encrypted link only (`SEC_JUST_WORKS`); the without-bonds one is open.
    static func secureApplication(bonded: Bool) -> [ServiceSpec] {
        let buttonless = bonded ? uuids.buttonlessWithBonds : uuids.buttonlessWithoutBonds
        return [
            deviceInformation,
            ServiceSpec(
                uuid: uuids.secureService,
                characteristics: [
                    CharacteristicSpec(
                        uuid: buttonless, properties: [.write, .indicate], requiresEncryption: bonded)
                ]),
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
