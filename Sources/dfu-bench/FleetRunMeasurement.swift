import ArgumentParser
import DFUFleet
import DFUSimulator
import DFUSupport
import FirmwareUpdate
import Foundation
import GATT
import NordicDFU
import SimulatedFleet
import SimulatorCommandLine

/// One fleet of simulated devices updated at concurrency = its size, and what it took.
struct FleetRunMeasurement {
    /// The longest of the devices' link times (probe, update and read-back), as the fleet ran.
    var linkTime: Duration = .zero
    var wallSeconds = 0.0
    /// Sums over the devices of image bytes per second of transfer, achieved and allowed by the
    /// link model (TransferBound) for the same configuration.
    var achievedBytesPerSecond = 0.0
    var boundBytesPerSecond = 0.0
    var baselineResidentBytes = 0
    var peakResidentBytes = 0
    var peakActive = 0
    var completed = 0

    static func measure(_ package: DFUPackage, devices count: Int, mtus: [Int], readBack: Bool = true)
        async throws -> FleetRunMeasurement
    {
        let configurations = (0..<count).map { index in
            var configuration = SimulatedDeviceConfiguration(
                kind: .secureApp,
                address: BluetoothAddress(
                    0xC0, 0xDE, 0x00, 0x00, UInt8(index >> 6), UInt8((index << 2) & 0xFF)),
                firmwareVersion: "1.0.0")
            configuration.mtu = mtus[index % mtus.count]
            return configuration
        }
        let (adapter, centrals) = try FleetAdapter.simulated(configurations)
        var options = FleetOptions()
        options.concurrency = count
        options.readBack = readBack
        let inventory = try FleetInventory(
            defaults: .init(package: "bench"),
            devices: configurations.map { FleetDeviceEntry(device: $0.address.description) })
        let fleet = try Fleet(
            inventory: inventory, packages: ["bench": FirmwarePackage(package)], adapters: [adapter],
            options: options
        )

        var measurement = FleetRunMeasurement()
        measurement.baselineResidentBytes = ResidentMemory.current()
        let sampler = SessionSampler()
        let started = ContinuousClock.now
        let report = await fleet.run { sampler.observe($0) }
        measurement.wallSeconds = (ContinuousClock.now - started).seconds
        measurement.peakResidentBytes = sampler.peakResident
        measurement.peakActive = max(1, sampler.peakActive)
        measurement.linkTime = centrals.map { $0.linkTime.now() }.max() ?? .zero
        let image = package.images[0]
        for (device, configuration) in zip(report.devices, configurations) where device.result == .completed {
            measurement.completed += 1
            measurement.achievedBytesPerSecond +=
                Double(image.firmware.count) / device.transferDuration.seconds
            let transfer = TransferConfiguration(
                dfuProtocol: .secure, imageSize: image.firmware.count,
                initPacketSize: image.initPacket?.count ?? 0,
                payloadSize: min(configuration.mtu - 3, 512) & ~3)
            measurement.boundBytesPerSecond +=
                Double(image.firmware.count) / TransferBound.minimumDuration(for: transfer).seconds
        }
        guard measurement.completed == count else {
            throw ValidationError(
                "\(count - measurement.completed) of \(count) devices did not complete: "
                    + (report.devices.compactMap(\.failure?.message).first ?? ""))
        }
        return measurement
    }
}

/// Counts active sessions from the fleet's events, and samples the resident memory while the
/// most are active.
final class SessionSampler: Sendable {
    private struct State {
        var active = Set<String>()
        var peakActive = 0
        var peakResident = 0
        var events = 0
    }

    private let state = Locked(State())

    var peakActive: Int { state.withLock { $0.peakActive } }
    var peakResident: Int { state.withLock { $0.peakResident } }

    func observe(_ event: FleetEvent) {
        state.withLock { state in
            switch event {
            case .device(let device, _): state.active.insert(device)
            case .finished(let report): state.active.remove(report.device)
            default: return
            }
            state.events += 1
            state.peakActive = max(state.peakActive, state.active.count)
            // Reading /proc costs a system call: sample every 64th event, and at every new peak.
            if state.events % 64 == 0 || state.active.count == state.peakActive {
                state.peakResident = max(state.peakResident, ResidentMemory.current())
            }
        }
    }
}

/// The process's resident set size, from /proc/self/statm.
enum ResidentMemory {
    static func current() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
