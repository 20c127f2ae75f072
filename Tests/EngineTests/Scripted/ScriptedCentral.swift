import DFUSupport
import GATT
import NordicDFU

/// A central that reaches one scripted bootloader, on real time.
final class ScriptedCentral<Bootloader: ScriptedBootloader>: GATTCentral {
    static var address: BluetoothAddress { BluetoothAddress(0xC0, 0xDE, 0x00, 0x00, 0x00, 0x42) }

    let link: ScriptedLink<Bootloader>
    private let services: [GATTService]
    let linkTime: any LinkTime = RealLinkTime()

    /// `services(link)` lays out the bootloader's GATT table over the link.
    init(_ link: ScriptedLink<Bootloader>, services: (ScriptedLink<Bootloader>) -> [GATTService]) {
        self.link = link
        self.services = services(link)
    }

    func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error> {
        AsyncThrowingStream {
            $0.finish(throwing: GATTError.timeout(operation: "scan", seconds: timeout.seconds))
        }
    }

    func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        guard link.isConnected else {
            throw GATTError.connectionFailed(device: device.description, reason: "the scripted device reset")
        }
        return ScriptedPeripheral(link: link, services: services)
    }

    /// Secure DFU bootloader: control point and packet in the 0xFE59 service.
    static func secureServices(_ link: ScriptedLink<Bootloader>) -> [GATTService] {
        let uuids = DFUUUIDs()
        return [
            GATTService(
                uuid: uuids.secureService,
                characteristics: [
                    ScriptedCharacteristic(uuids.secureControlPoint, link: link, role: .controlPoint),
                    ScriptedCharacteristic(uuids.securePacket, link: link, role: .packet),
                ])
        ]
    }

    /// Legacy DFU bootloader with a DFU Version characteristic reading `version`.
    static func legacyServices(version: LegacyDFUVersion) -> (ScriptedLink<Bootloader>) -> [GATTService] {
        { link in
            let uuids = DFUUUIDs()
            return [
                GATTService(
                    uuid: uuids.legacyService,
                    characteristics: [
                        ScriptedCharacteristic(uuids.legacyControlPoint, link: link, role: .controlPoint),
                        ScriptedCharacteristic(uuids.legacyPacket, link: link, role: .packet),
                        ScriptedCharacteristic(
                            uuids.legacyVersion, link: link, role: .value(version.encoded)),
                    ])
            ]
        }
    }
}

final class ScriptedPeripheral<Bootloader: ScriptedBootloader>: GATTPeripheral {
    let link: ScriptedLink<Bootloader>
    private let table: [GATTService]

    init(link: ScriptedLink<Bootloader>, services: [GATTService]) {
        self.link = link
        self.table = services
    }

    var address: BluetoothAddress { ScriptedCentral<Bootloader>.address }
    var name: String? { "DfuTarg" }
    var mtu: Int { 247 }
    var isConnected: Bool { link.isConnected }

    func services() async throws -> [GATTService] { table }

    func disconnect() async { link.disconnect() }

    func waitForDisconnection(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while link.isConnected {
            guard ContinuousClock.now < deadline else {
                throw GATTError.timeout(operation: "disconnection", seconds: timeout.seconds)
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

final class ScriptedCharacteristic<Bootloader: ScriptedBootloader>: GATTCharacteristic {
    enum Role {
        case controlPoint
        case packet
        case value([UInt8])
    }

    let uuid: BluetoothUUID
    let serviceUUID = DFUUUIDs().secureService
    let link: ScriptedLink<Bootloader>
    let role: Role

    init(_ uuid: BluetoothUUID, link: ScriptedLink<Bootloader>, role: Role) {
        self.uuid = uuid
        self.link = link
        self.role = role
    }

    var properties: CharacteristicProperties {
        switch role {
        case .controlPoint: [.write, .notify]
        case .packet: [.writeWithoutResponse]
        case .value: [.read]
        }
    }

    var maximumWriteWithoutResponseLength: Int { 244 }

    func read(timeout: Duration) async throws -> [UInt8] {
        guard case .value(let bytes) = role else {
            throw GATTError.operationFailed(operation: "read", reason: "not readable")
        }
        return bytes
    }

    func write(_ value: [UInt8], timeout: Duration) async throws { try link.writeControlPoint(value) }

    func writeWithoutResponse(_ value: [UInt8]) async throws {
        try link.writePacket(value)
        await Task.yield()
    }

    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        link.subscribe()
    }
}
