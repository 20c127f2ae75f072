import DFURollout
import Foundation

/// Rollouts for the tests: one package, devices named by number.
public enum RolloutFixtures {
    /// The one package of every rollout.
    public static let package = RolloutPackage(
        name: "app.zip", bytes: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }))

    /// A rollout of `devices` devices with a name of its own (stores may be shared by tests).
    public static func spec(devices: Int, canary: Int = 0, maxFailures: Int? = nil) -> RolloutSpec {
        RolloutSpec(
            name: "rollout-\(UUID().uuidString.prefix(8))", packages: [package],
            devices: (0..<devices).map {
                RolloutDevice(device: deviceName($0), packageSHA256: package.sha256)
            },
            canary: canary, maxFailures: maxFailures)
    }

    /// The name of device number `index`, an address.
    public static func deviceName(_ index: Int) -> String {
        String(format: "C0:DE:00:00:%02X:%02X", index / 256, index % 256)
    }

    /// A lease no test outlives.
    public static let longLease = Duration.seconds(600)
}
