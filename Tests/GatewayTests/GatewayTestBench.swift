import DFUFleet
import DFUGateway
import DFURollout
import DFUSimulator
import DFUSupport
import Foundation
import GATT
import SimulatedFleet
import SimulatorCommandLine
import TestSupport
import XCTest

/// A rollout in an embedded store in a temporary folder, and gateway agents that reach its
/// devices as simulated devices of their own (a device two gateways see has the same address in
/// both, as one radio device heard by two gateways).
final class GatewayTestBench: Sendable {
    let folder: URL
    let storePath: String
    /// Older than every package used here, so that each device is updated.
    static let installedVersion = "0.0.1"

    init(_ test: XCTestCase) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        storePath = folder.appendingPathComponent("rollouts.sqlite").path
        let folder = folder
        test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    }

    static func address(_ index: Int) -> String {
        String(format: "C0:DE:00:02:%02X:%02X", index >> 7, (index << 1) & 0xFF)
    }

    /// A rollout of `devices` devices, all with the fixture `package` (or a package of `bytes`,
    /// stored as the store takes it, unchecked); `withInventory`: with the inventory file that
    /// `rollout create` stores, which names the package, and each device's entry of it alone with
    /// the inventory's entry frame, as `rollout create` stores them (without `entries`: the whole
    /// file only, as older versions stored it). `entryMembers`: members added to a device's entry
    /// of that file, by the device's index (e.g. `"adapter": "hci1"`).
    func createRollout(
        _ name: String, devices: Int, package: String = "secure/secure_app_20_hex_signed.zip",
        bytes: Data? = nil, canary: Int = 0, concurrency: Int = 4, withInventory: Bool = false,
        entries: Bool = true, entryMembers: [Int: String] = [:]
    ) async throws {
        let bytes = try bytes ?? Data(contentsOf: try Fixtures.url(package))
        let packageName = folder.appendingPathComponent("app.zip").path
        let rolloutPackage = RolloutPackage(name: packageName, bytes: bytes)
        var inventory =
            withInventory ? inventory(devices: devices, package: "app.zip", members: entryMembers) : nil
        let index = try inventory.map { try FleetInventoryIndex(data: $0.bytes, folder: folder) }
        if entries { inventory?.entryFrame = index?.frame }
        let spec = RolloutSpec(
            name: name, packages: [rolloutPackage],
            devices: try (0..<devices).map {
                RolloutDevice(
                    device: Self.address($0), packageSHA256: rolloutPackage.sha256,
                    inventoryEntry: entries ? index?.entry(of: DeviceIdentifier(Self.address($0))) : nil)
            },
            canary: canary, concurrency: concurrency, inventory: inventory)
        let store = try openStore()
        try await store.create(spec)
        await store.close()
    }

    private func inventory(devices: Int, package: String, members: [Int: String]) -> RolloutInventory {
        let entries = (0..<devices).map { index in
            #"{"device": "\#(Self.address(index))"\#(members[index].map { ", \($0)" } ?? "")}"#
        }
        let json =
            #"{"defaults": {"package": "\#(package)"}, "devices": [\#(entries.joined(separator: ", "))]}"#
        return RolloutInventory(bytes: Data(json.utf8), folder: folder.path)
    }

    func openStore() throws -> EmbeddedRolloutStore { try EmbeddedRolloutStore(path: storePath) }

    /// A gateway that sees the devices at `indices`, each simulated with `realTimeFactor`.
    /// `store`: the store it uses (default: one of its own on the bench's file). `adapters`: the
    /// names of adapters the gateway scans, as it scans Bluetooth adapters: the first hears
    /// every device, the others none (default: none, each device is a simulated device of its
    /// own, seen without a scan).
    func gateway(
        _ name: String, sees indices: [Int], realTimeFactor: Double = 0, faults: [Int: [String]] = [:],
        store: (any RolloutStore)? = nil, adapters names: [String] = [],
        configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) throws -> TestGateway {
        var simulated: [(device: DeviceIdentifier, adapter: FleetAdapter)] = []
        var centrals: [String: SimulatedCentral] = [:]
        var scanned: [SimulatedDeviceConfiguration] = []
        for index in indices {
            var spec = FleetSimulationSpec(
                kind: "secure-app", firmwareVersion: Self.installedVersion, faults: faults[index] ?? [])
            spec.realTimeFactor = realTimeFactor
            let entry = FleetDeviceEntry(device: Self.address(index), simulate: spec)
            let configuration = try SimulatedDeviceConfiguration(fleetEntry: entry, index: index)
            guard names.isEmpty else {
                scanned.append(configuration)
                continue
            }
            let (adapter, central) = try FleetAdapter.simulated([configuration])
            simulated.append((entry.identifier, adapter))
            centrals[entry.device] = central[0]
        }
        var configuration = GatewayConfiguration(name: name)
        configuration.pollInterval = .milliseconds(50)
        configuration.scanWindow = .milliseconds(10)
        configuration.exitWhenIdle = true
        configure(&configuration)
        var adapters: [FleetAdapter] = []
        for (index, name) in names.enumerated() {
            let (adapter, heardCentrals) = try FleetAdapter.simulated(index == 0 ? scanned : [], name: name)
            adapters.append(adapter)
            for (device, central) in zip(scanned, heardCentrals) {
                centrals[device.address.description] = central
            }
        }
        let agent = GatewayAgent(
            store: try store ?? openStore(), configuration: configuration,
            reach: GatewayReach(simulated: simulated, adapters: adapters))
        return TestGateway(name: name, agent: agent, centrals: centrals)
    }
}

/// A gateway agent under test, its simulated devices, and the events it emitted.
final class TestGateway: Sendable {
    let name: String
    let agent: GatewayAgent
    let centrals: [String: SimulatedCentral]
    /// Each event with the wall-clock time it came.
    let events = Locked<[(wall: Date, event: GatewayEvent)]>([])

    init(name: String, agent: GatewayAgent, centrals: [String: SimulatedCentral]) {
        self.name = name
        self.agent = agent
        self.centrals = centrals
    }

    /// What ended its run with an error (the store refused it), if anything did.
    let failure = Locked<(any Error)?>(nil)

    /// Runs the agent to its end; an error it throws is kept in `failure`.
    func run() async {
        do {
            try await agent.run { event in self.events.withLock { $0.append((Date(), event)) } }
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// The last event of a device's update.
    func lastFleetEvent() -> (wall: Date, event: GatewayEvent)? {
        events.withLock { $0.last { if case .fleet = $0.event { true } else { false } } }
    }

    /// Times its simulated devices were activated, by device.
    var activations: [String: Int] {
        centrals.mapValues { $0.snapshots.first?.activations ?? 0 }
    }

    func claims() -> [DeviceClaim] {
        events.withLock { $0.compactMap { if case .claimed(let claim) = $0.event { claim } else { nil } } }
    }

    func reported() -> [String: DeviceResult] {
        events.withLock { events in
            var results: [String: DeviceResult] = [:]
            for case (_, .reported(let claim, let result)) in events { results[claim.device] = result }
            return results
        }
    }

    func leaseLost() -> [String] {
        events.withLock {
            $0.compactMap { if case .leaseLost(let claim, _) = $0.event { claim.device } else { nil } }
        }
    }

    /// The reasons of its `rolloutUnusable` events, in order.
    func unusableReasons() -> [String] {
        events.withLock {
            $0.compactMap { if case .rolloutUnusable(_, let reason) = $0.event { reason } else { nil } }
        }
    }

    /// Runs the agent until it finds itself idle, for at most `timeout` (then stops it);
    /// returns whether it did.
    func runUntilIdle(within timeout: Duration = .seconds(30)) async -> Bool {
        let running = Task { await run() }
        let idle = try? await poll("found itself idle", within: timeout) {
            events.withLock { $0.contains { if case .idle = $0.event { true } else { false } } } ? true : nil
        }
        running.cancel()
        await running.value
        return idle == true
    }

    /// The reasons of its `released` events, in order.
    func releaseReasons() -> [String] {
        events.withLock {
            $0.compactMap { if case .released(_, let reason) = $0.event { reason } else { nil } }
        }
    }

    func released() -> [String] {
        events.withLock {
            $0.compactMap { if case .released(let claim, _) = $0.event { claim.device } else { nil } }
        }
    }

    /// Waits (polling every 10 ms, at most `timeout`) until it has claimed a device.
    func firstClaim(within timeout: Duration = .seconds(30)) async throws -> DeviceClaim {
        try await poll("claimed a device", within: timeout) { self.claims().first }
    }

    /// Polls `found` every 10 ms until it gives a value, for at most `timeout`.
    func poll<T>(_ what: String, within timeout: Duration = .seconds(30), _ found: () -> T?) async throws -> T
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = found() { return value }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw GatewayTestError(description: "\(name) has not \(what) within \(timeout)")
    }
}

struct GatewayTestError: Error, CustomStringConvertible {
    var description: String
}
