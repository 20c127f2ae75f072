import ArgumentParser
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// `dfu-bench dfu`: the engine's throughput against the simulator, next to the best the
/// simulator's link and flash model allows for the same configuration, and next to the Nordic
/// mobile libraries' defaults on the same model.
struct DFUBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dfu",
        abstract: "Secure DFU throughput on the simulated device, against the model's bound.",
        discussion: """
            Prints one JSON line per case: image size, MTU, PRN, options (default: the engine's \
            defaults, PRN on each object's last packet; fixed_prn: the PRN given; nordic_mobile: \
            Nordic's current mobile defaults, packets as large as the link carries, PRN 12, no \
            preparation delay), achieved and \
            bound bytes per second on virtual link time, and their ratio; then one line with the \
            ratios of the run. Throughput counts from the first control point request to the \
            final Execute answer, as the bound does.
            """)

    /// 100 KiB and 1 MiB. A 1 MiB application does not fit beside the SoftDevice and bootloader
    /// of an nRF52840, so the benchmark's simulated device has a bank large enough for any size
    /// asked for (a part with more flash); link and flash timing are the nRF52's.
    @Option(help: "Image sizes in bytes.")
    var sizes: [Int] = [100 * 1024, 1024 * 1024]

    @Option(help: "ATT MTUs.")
    var mtus: [Int] = [23, 247, 517]

    @Option(help: "Also run the default options with these fixed packet receipt intervals.")
    var prns: [UInt16] = [0]

    @Option(help: "Also run the default options with these data object preparation delays (ms).")
    var prepareDelays: [Int] = []

    struct Case {
        var size: Int
        var mtu: Int
        var prn: UInt16
        var label: String
        var options: DFUOptions
    }

    func run() async throws {
        var achievedByLabel: [String: [String: Double]] = [:]
        for size in sizes {
            let package = try Self.package(size: size)
            for mtu in mtus {
                // The default interval is one object's packets (see DFUOptions).
                let objectPackets = UInt16((4096 + Self.payload(mtu: mtu) - 1) / Self.payload(mtu: mtu))
                var cases = [
                    Case(size: size, mtu: mtu, prn: objectPackets, label: "default", options: DFUOptions())
                ]
                cases += prns.map { prn in
                    var options = DFUOptions()
                    options.nordic.packetReceiptNotifications = prn
                    return Case(size: size, mtu: mtu, prn: prn, label: "fixed_prn", options: options)
                }
                for delay in prepareDelays {
                    var options = DFUOptions()
                    options.nordic.packetReceiptNotifications = 0
                    options.nordic.dataObjectPreparationDelay = .milliseconds(delay)
                    cases.append(
                        Case(size: size, mtu: mtu, prn: 0, label: "delay_\(delay)ms", options: options))
                }
                cases.append(
                    Case(size: size, mtu: mtu, prn: 12, label: "nordic_mobile", options: Self.nordicMobile))
                for benchCase in cases {
                    let achieved: Double
                    do {
                        achieved = try await Self.measure(package, benchCase)
                    } catch {
                        print(
                            "{\"benchmark\":\"dfu\",\"image_bytes\":\(size),\"mtu\":\(mtu),\"prn\":\(benchCase.prn),"
                                + "\"options\":\"\(benchCase.label)\",\"error\":\"\(error)\"}")
                        continue
                    }
                    let bound = Self.bound(package, benchCase)
                    achievedByLabel["\(size)/\(mtu)", default: [:]]["\(benchCase.label)/\(benchCase.prn)"] =
                        achieved
                    let line: [(String, String)] = [
                        ("benchmark", "\"dfu\""), ("image_bytes", "\(size)"), ("mtu", "\(mtu)"),
                        ("prn", "\(benchCase.prn)"), ("options", "\"\(benchCase.label)\""),
                        ("packet_bytes", "\(Self.payload(benchCase))"),
                        ("achieved_bytes_per_second", figure(achieved)),
                        ("bound_bytes_per_second", figure(bound)),
                        ("ratio", figure(achieved / bound)),
                    ]
                    print("{" + line.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
                }
            }
        }
        for (key, values) in achievedByLabel.sorted(by: { $0.key < $1.key }) {
            if let ours = values.first(where: { $0.key.hasPrefix("default/") })?.value,
                let nordic = values["nordic_mobile/12"]
            {
                let parts = key.split(separator: "/")
                print(
                    "{\"ratio\":\"default/nordic_mobile\",\"image_bytes\":\(parts[0]),\"mtu\":\(parts[1]),"
                        + "\"value\":\(figure(ours / nordic))}")
            }
        }
    }

    /// Nordic's mobile libraries' current defaults: packets as large as the link carries, PRN
    /// 12, no data object preparation delay.
    static var nordicMobile: DFUOptions {
        var options = DFUOptions()
        options.nordic.packetReceiptNotifications = 12
        options.nordic.firstDataObjectDelay = .zero
        options.nordic.dataObjectPreparationDelay = .zero
        return options
    }

    static func package(size: Int) throws -> DFUPackage {
        var generator = SplitMix64(seed: UInt64(size))
        let firmware = generator.bytes(size)
        return try DFUPackage.unsignedSecureApplication(
            firmware: firmware, version: 20000, name: "bench-\(size).bin")
    }

    static func payload(_ benchCase: Case) -> Int {
        payload(mtu: benchCase.mtu, maximum: benchCase.options.maximumPacketSize)
    }

    static func payload(mtu: Int, maximum: Int = DFUOptions().maximumPacketSize) -> Int {
        min(mtu - 3, maximum) & ~3
    }

    /// Image bytes per second of virtual link time, from the first request to the final answer.
    static func measure(_ package: DFUPackage, _ benchCase: Case) async throws -> Double {
        var configuration = SimulatedDeviceConfiguration(kind: .secure)
        configuration.bankCapacity = max(configuration.bankCapacity, package.images[0].firmware.count)
        configuration.mtu = benchCase.mtu
        let central = try SimulatedCentral(devices: [configuration])
        let updater = DFUUpdater(
            package: package, central: central, device: .address(configuration.address),
            options: benchCase.options)
        let result = await updater.run()
        guard result.outcome == .completed, let duration = result.transferDurations.first else {
            throw ValidationError(
                "the update did not complete: \(result.failure?.message ?? result.identifier)")
        }
        return Double(package.images[0].firmware.count) / duration.seconds
    }

    static func bound(_ package: DFUPackage, _ benchCase: Case) -> Double {
        let image = package.images[0]
        let transfer = TransferConfiguration(
            dfuProtocol: .secure, imageSize: image.firmware.count,
            initPacketSize: image.initPacket?.count ?? 0,
            payloadSize: payload(benchCase),
            // A receipt on the object's last packet takes the place of Calculate Checksum: the
            // bound without receipts has the same round trips.
            packetReceiptNotifications: benchCase.label == "default" ? 0 : Int(benchCase.prn))
        return Double(image.firmware.count) / TransferBound.minimumDuration(for: transfer).seconds
    }
}
