import DFUSimulator
import DFUSupport
import NordicDFU

/// A random number generator that replays: the same seed gives the same numbers (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One soak run: a package, a device, the link's MTU, the PRN the engine asks for and the faults
/// the device injects. Its description is what a failing run prints so it can be replayed.
struct SoakCombination: CustomStringConvertible {
    /// The packages the soak draws from (`TestPackages`), by name.
    enum Package: String, CaseIterable {
        case secureApp, secureSDBLApp, legacyApp, legacySDBLApp

        var isLegacy: Bool { self == .legacyApp || self == .legacySDBLApp }

        func load() throws -> DFUPackage {
            switch self {
            case .secureApp: try TestPackages.secureApp()
            case .secureSDBLApp: try TestPackages.secureSDBLApp()
            case .legacyApp: try TestPackages.legacyApp()
            case .legacySDBLApp: try TestPackages.legacySDBLApp()
            }
        }
    }

    var index: Int
    var package: Package
    var kind: SimulatedDeviceKind
    var mtu: Int
    /// nil: the engine's default.
    var prn: UInt16?
    var faults: [SimulatedFault]

    /// The `index`-th combination of the soak seeded with `seed`: each combination has its own
    /// generator, so one can be replayed without the others.
    init(seed: UInt64, index: Int, imageSizes: [Package: Int]) {
        var random = SeededGenerator(seed: seed &+ UInt64(index) &* 0x1_0000_0001)
        self.index = index
        // Applications most of the time: the system images are ten times larger.
        package =
            Int.random(in: 0..<10, using: &random) < 8
            ? [.secureApp, .legacyApp].randomElement(using: &random)!
            : [.secureSDBLApp, .legacySDBLApp].randomElement(using: &random)!
        kind =
            package.isLegacy
            ? [.legacy, .legacyApp].randomElement(using: &random)!
            : [.secure, .secureApp, .secureAppBonded].randomElement(using: &random)!
        mtu = [23, 65, 158, 185, 247, 517].randomElement(using: &random)!
        prn = [nil, 0, 1, 2, 10, 12, UInt16.random(in: 3...40, using: &random)].randomElement(using: &random)!
        let imageSize = imageSizes[package] ?? 4096
        faults = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            switch Int.random(in: 0..<5, using: &random) {
            case 0: .disconnectAt(bytes: Int.random(in: 0..<imageSize, using: &random))
            case 1: .dropNotification(Int.random(in: 1...30, using: &random))
            case 2: .crcError(Int.random(in: 1...8, using: &random))
            case 3: .rejectConnect(Int.random(in: 1...4, using: &random))
            default: .slowFlash(.milliseconds(Int.random(in: 90...500, using: &random)))
            }
        }
    }

    var description: String {
        let prnText = prn.map(String.init) ?? "default"
        let faultText = faults.isEmpty ? "none" : faults.map(\.description).joined(separator: " ")
        return
            "#\(index) \(package.rawValue) on \(kind.rawValue), MTU \(mtu), PRN \(prnText), faults: \(faultText)"
    }
}
