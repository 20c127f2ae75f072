import GATT
import MCUmgr

/// SMP's side of a device: MCUmgr's characteristic, always in the application (an MCUboot
/// device is updated from it); the probe asks it for its image list and bootloader.
struct SMPDeviceFamily: DeviceFamily {
    func support(in services: [GATTService], timeout: Duration) async throws -> DFUDeviceSupport? {
        SMPUUIDs.characteristic(in: services) == nil
            ? nil : DFUDeviceSupport(protocolKind: .smp, mode: .application)
    }

    func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID]) -> DFUProtocol? {
        serviceUUIDs.contains(SMPUUIDs.service) ? .smp : nil
    }

    /// The running image's version when Device Information gave none, the image layout and the
    /// bootloader, through requests that only read (`DeviceProbe.readSMP`).
    func read(into probe: inout DeviceProbe, services: [GATTService], timeout: Duration) async {
        let told = await DeviceProbe.readSMP(in: services, timeout: timeout)
        probe.firmwareRevision = probe.firmwareRevision ?? told.version
        probe.bootloader = told.bootloader
        probe.imageLayout = told.layout
        probe.subscribed = true
    }
}
