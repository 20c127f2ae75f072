import DFUFleet
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import NordicDFU
import XCTest

/// Packages and simulated fleets for the fleet tests, made here: each package has its own
/// pseudo-random image, so that a device holding an image proves which package it got.
enum FleetFixtures {
    static func image(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return generator.bytes(count)
    }

    /// A Secure application package of `version` (x·10000 + y·100 + z).
    static func secure(version: UInt32, size: Int = 6000, seed: UInt64) throws -> DFUPackage {
        try DFUPackage.unsignedSecureApplication(
            firmware: image(count: size, seed: seed), version: version, name: "secure-\(version).bin")
    }

    /// A Legacy application package with a dfu_version 0.5 init packet (any device type and
    /// revision, any SoftDevice, CRC-16 of the image).
    static func legacy(version: UInt32, size: Int = 5000, seed: UInt64) throws -> DFUPackage {
        let firmware = image(count: size, seed: seed)
        var initPacket: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        initPacket += withUnsafeBytes(of: version.littleEndian, Array.init)
        initPacket += [0x01, 0x00, 0xFE, 0xFF]
        initPacket += withUnsafeBytes(of: CRC16.checksum(firmware).littleEndian, Array.init)
        return try DFUPackage(firmware: firmware, initPacket: initPacket, name: "legacy-\(version).bin")
    }

    /// The SHA-256 the simulator reports for the package's application image.
    static func sha256(_ package: DFUPackage) -> String {
        package.images[0].sha256.hexString().lowercased()
    }

    /// A simulated device at `C0:DE:00:00:HH:LL` (index·4, so that address + 1 is nobody's).
    static func device(
        _ index: Int, kind: SimulatedDeviceKind, firmware: String? = nil, faults: [SimulatedFault] = [],
        name: String = "DfuSim"
    ) -> SimulatedDeviceConfiguration {
        let address = BluetoothAddress(0xC0, 0xDE, 0, 0, UInt8((index * 4) >> 8), UInt8((index * 4) & 0xFF))
        var configuration = SimulatedDeviceConfiguration(
            kind: kind, address: address, name: name, firmwareVersion: firmware,
            faults: faults)
        configuration.legacyDFUVersion = LegacyDFUVersion(major: 0, minor: 5)
        return configuration
    }

    /// Fleet options that suit simulated devices: short discovery, no wait between retries.
    static func options(concurrency: Int) -> FleetOptions {
        var options = FleetOptions()
        options.concurrency = concurrency
        options.discoveryTimeout = .seconds(2)
        options.backoff = .milliseconds(100)
        options.update.bootloaderScanTimeout = .seconds(5)
        return options
    }

    /// An inventory of one simulated Secure DFU application at 1.0.0 (C0:DE:00:00:00:10, in real
    /// time) and its package, `app.bin` with `app.dat`, written into `folder`.
    static func oneDeviceInventory(in folder: URL, size: Int = 60000, seed: UInt64 = 7) throws -> URL {
        let package = try secure(version: 20000, size: size, seed: seed)
        try Data(package.images[0].firmware).write(to: folder.appendingPathComponent("app.bin"))
        try Data(package.images[0].initPacket ?? []).write(to: folder.appendingPathComponent("app.dat"))
        let inventory = folder.appendingPathComponent("fleet.json")
        try Data(
            """
            {"defaults": {"package": "app.bin"}, "devices": [{"device": "C0:DE:00:00:00:10", "simulate": \
            {"kind": "secure-app", "firmware_version": "1.0.0", "real_time_factor": 1}}]}
            """.utf8
        ).write(to: inventory)
        return inventory
    }

    /// A temporary folder, removed when the test ends.
    static func temporaryFolder(_ test: XCTestCase) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}

/// The events of a run, gathered from the run's tasks.
final class EventLog: Sendable {
    private let events = Locked([FleetEvent]())

    func append(_ event: FleetEvent) { events.withLock { $0.append(event) } }

    var all: [FleetEvent] { events.withLock { $0 } }

    var planned: [String: FleetPlanEntry] {
        var entries: [String: FleetPlanEntry] = [:]
        for case .planned(let entry) in all { entries[entry.device] = entry }
        return entries
    }
}

extension FleetReport {
    func device(_ name: String) -> FleetDeviceReport? { devices.first { $0.device == name } }
}
