import GATT

@testable import FirmwareUpdate

/// A third protocol family that lives only in this test target, to show the device-side seam: a
/// firmware loader with a service of its own, which tells its version in its one characteristic.
/// Its devices take a protocol the engine already names (an SMP loader, in its bootloader mode):
/// a real family adds its `DFUProtocol` case, which a test target cannot.
struct LoaderFamily: DeviceFamily {
    static let service = BluetoothUUID("6E4C0001-7A3B-4D2E-9C1F-0B5A8D3E2F10")!
    static let version = BluetoothUUID("6E4C0002-7A3B-4D2E-9C1F-0B5A8D3E2F10")!

    /// The loader's service holding `version` as its version.
    static func service(version: String) -> GATTService {
        GATTService(
            uuid: service,
            characteristics: [
                FixedValue(bytes: Array(version.utf8), uuid: Self.version, serviceUUID: service)
            ])
    }

    func support(in services: [GATTService], timeout: Duration) async throws -> DFUDeviceSupport? {
        services.contains { $0.uuid == Self.service }
            ? DFUDeviceSupport(protocolKind: .smp, mode: .bootloader) : nil
    }

    func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID]) -> DFUProtocol? {
        serviceUUIDs.contains(Self.service) ? .smp : nil
    }

    /// The loader's own version, in place of any other.
    func read(into probe: inout DeviceProbe, services: [GATTService], timeout: Duration) async throws {
        probe.firmwareRevision = try await DeviceProbe.text(of: Self.version, in: services, timeout: timeout)
    }
}
