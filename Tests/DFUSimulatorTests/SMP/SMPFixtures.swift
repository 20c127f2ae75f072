import DFUSimulator
import MCUmgr

/// Devices and images the SMP tests share.
enum SMPFixtures {
    /// An SMP device running image version `factoryVersion`, with `configure` applied.
    static func device(
        factoryVersion: String = "1.0.0", mtu: Int = 247, faults: [SimulatedFault] = [],
        _ configure: (inout SMPDeviceConfiguration) -> Void = { _ in }
    ) -> SimulatedDeviceConfiguration {
        var device = SimulatedDeviceConfiguration(
            kind: .smpApp, firmwareVersion: factoryVersion, mtu: mtu, faults: faults)
        configure(&device.smp)
        return device
    }

    /// An MCUboot image of `version` with a `bodySize`-byte body.
    static func image(_ version: String = "1.1.0", bodySize: Int = 20_000, seed: UInt8 = 1) -> [UInt8] {
        SimulatedMCUbootImage.make(version: MCUbootVersion(version)!, bodySize: bodySize, seed: seed)
    }

    /// The image hash (SHA-256 TLV) of `bytes`.
    static func hash(_ bytes: [UInt8]) throws -> [UInt8] { try MCUbootImage(bytes: bytes, name: "test").hash }
}
