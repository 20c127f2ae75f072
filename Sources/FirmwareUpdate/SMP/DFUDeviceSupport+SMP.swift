import GATT
import MCUmgr

extension DFUDeviceSupport {
    /// An SMP device, when `services` hold MCUmgr's characteristic: always its application (an
    /// MCUboot device is updated from it).
    static func smp(in services: [GATTService]) -> DFUDeviceSupport? {
        SMPUUIDs.characteristic(in: services) == nil ? nil : Self(protocolKind: .smp, mode: .application)
    }
}
