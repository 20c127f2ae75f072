import ArgumentParser
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU

/// `dfu-bench fleet`: many simulated devices updated at once, each on a link of its own
/// (docs/fleet.md, "Benchmark").
struct FleetBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Fleet updates of simulated devices: throughput, memory per session, scheduling overhead.",
        discussion: """
            Each simulated device has its own SimulatedCentral, hence its own link and virtual \
            clock, as separate radios would. Prints one JSON line per fleet size, then one with \
            the ratios of the run: aggregate throughput over the sum of the devices' link-model \
            bounds and over the same devices each updated alone by the engine, memory per active session, for N devices at concurrency N the fleet's link \
            time over a fleet of one, and a fleet of one over the engine alone (what the fleet's \
            read-only probe and read-back of the version cost on the link).
            """)

    @Option(help: "Devices in the large fleet.")
    var devices = 100

    @Option(help: "Fleet sizes for the overhead curve (each at concurrency = size).")
    var sizes: [Int] = [1, 10, 50, 100]

    @Option(help: "Image size in bytes.")
    var imageBytes = 100 * 1024

    /// The MTUs the devices offer, in turn.
    static let mtus = [23, 247, 517]

    func run() async throws {
        let package = try DFUBenchmark.package(size: imageBytes)
        var alone: [Int: (linkTime: Duration, bytesPerSecond: Double)] = [:]
        for mtu in Self.mtus { alone[mtu] = try await Self.alone(package, mtu: mtu) }
        var linkRatios: [Double] = []
        var fleetOfOne = Duration.zero
        var wallPerDeviceAtOne = 0.0
        var wallRatio = 0.0
        for size in sizes {
            let run = try await FleetRunMeasurement.measure(package, devices: size, mtus: [Self.mtus[0]])
            if size == sizes.first {
                fleetOfOne = run.linkTime
                wallPerDeviceAtOne = run.wallSeconds / Double(size)
            }
            let linkRatio = run.linkTime.seconds / fleetOfOne.seconds
            linkRatios.append(linkRatio)
            wallRatio = run.wallSeconds / Double(size) / wallPerDeviceAtOne
            print(
                "{\"benchmark\":\"fleet_overhead\",\"devices\":\(size),\"concurrency\":\(size),"
                    + "\"link_seconds\":\(figure(run.linkTime.seconds)),"
                    + "\"link_over_fleet_of_one\":\(figure(linkRatio)),"
                    + "\"wall_seconds\":\(figure(run.wallSeconds)),"
                    + "\"wall_per_device_over_fleet_of_one\":\(figure(wallRatio))}")
        }
        let withoutReadBack = try await FleetRunMeasurement.measure(
            package, devices: 1, mtus: [Self.mtus[0]], readBack: false)
        let large = try await FleetRunMeasurement.measure(package, devices: devices, mtus: Self.mtus)
        let throughputRatio = large.achievedBytesPerSecond / large.boundBytesPerSecond
        // The same devices, each updated alone by the engine: what the fleet itself costs.
        let engineAlone = (0..<devices).map { alone[Self.mtus[$0 % Self.mtus.count]]!.bytesPerSecond }.reduce(
            0, +)
        let perSession =
            Double(large.peakResidentBytes - large.baselineResidentBytes) / Double(large.peakActive)
        print(
            "{\"benchmark\":\"fleet\",\"devices\":\(devices),\"image_bytes\":\(imageBytes),"
                + "\"achieved_bytes_per_second\":\(figure(large.achievedBytesPerSecond)),"
                + "\"bound_bytes_per_second\":\(figure(large.boundBytesPerSecond)),"
                + "\"peak_active_sessions\":\(large.peakActive),"
                + "\"resident_bytes_per_session\":\(Int(perSession)),\"completed\":\(large.completed)}")
        let engineAloneTime = alone[Self.mtus[0]]!.linkTime.seconds
        let ratios: [(String, Double)] = [
            ("aggregate_over_bound", throughputRatio),
            ("aggregate_over_engine_alone", large.achievedBytesPerSecond / engineAlone),
            ("session_memory_over_2MiB", perSession / (2 * 1024 * 1024)),
            ("worst_link_over_fleet_of_one", linkRatios.max() ?? 0),
            ("fleet_of_one_over_engine_alone", fleetOfOne.seconds / engineAloneTime),
            (
                "fleet_of_one_without_read_back_over_engine_alone",
                withoutReadBack.linkTime.seconds / engineAloneTime
            ),
            ("wall_per_device_at_\(sizes.last ?? 0)_over_1", wallRatio),
        ]
        print(
            "{\"ratios\":{" + ratios.map { "\"\($0.0)\":\(figure($0.1))" }.joined(separator: ",") + "}}")
    }

    /// One device updated alone with `DFUUpdater`: its link time from connection to reset, and
    /// its image bytes per second of transfer.
    static func alone(_ package: DFUPackage, mtu: Int) async throws -> (
        linkTime: Duration, bytesPerSecond: Double
    ) {
        var configuration = SimulatedDeviceConfiguration(kind: .secureApp, firmwareVersion: "1.0.0")
        configuration.mtu = mtu
        let central = try SimulatedCentral(devices: [configuration])
        let result = await DFUUpdater(
            package: package, central: central, device: .address(configuration.address)
        ).run()
        guard result.outcome == .completed, let transfer = result.transferDurations.first else {
            throw ValidationError(
                "the single update did not complete: \(result.failure?.message ?? result.identifier)")
        }
        return (central.linkTime.now(), Double(package.images[0].firmware.count) / transfer.seconds)
    }
}
