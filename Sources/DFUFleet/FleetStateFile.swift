import DFURollout
import DFUSupport
import Foundation

/// The devices a fleet finished, kept in an embedded rollout store (the SQLite file
/// `EmbeddedRolloutStore` opens) so that a run interrupted by Ctrl-C or a reboot, started
/// again, skips them (docs/fleet.md, "State file"). The store holds one rollout, named by the
/// inventory's identity, created with the first device that finishes; each device that ends
/// `completed` or `skipped` is claimed and reported there in one transaction after another, so
/// `rollout status --store FILE` shows the run's progress and a crash loses no reported device.
public final class FleetStateFile: Sendable {
    /// What the file remembers of a finished device.
    public struct Entry: Sendable, Equatable {
        /// `completed` or `skipped`.
        public var result: String
        public var package: String?
        public var versionAfter: String?
    }

    public let url: URL
    /// The rollout's name in the store: the identity of the inventory (e.g. its CRC-32 and size).
    public let rollout: String
    /// The inventory file the rollout is made from, kept in the store as `rollout create` keeps
    /// it (empty when the maker gives none: the fleet never reads it back).
    let source: RolloutInventory
    /// A finished device's report as the store keeps it (the CLI's JSON of it).
    let describe: @Sendable (FleetDeviceReport) -> Data?
    private let done: Locked<[String: Entry]>
    private let store: Locked<EmbeddedRolloutStore?>
    /// The last of the writes, each waiting for the one before (`record`).
    private let lastWrite = Locked<Task<Void, Never>?>(nil)
    /// Whether a write found the rollout paused or cancelled (`rollout pause`/`cancel --store
    /// FILE`): nothing is written after it, and the fleet hears of it once.
    private let stopped = Locked(false)
    /// Held while this fleet runs: no other fleet may take the file meanwhile (none for a plan,
    /// which only reads the file).
    private let runLock: RunLock?

    /// Opens the state of the rollout of the inventory whose identity is `inventory`; a missing
    /// file is an empty state, created only when a device finishes. Throws when the file
    /// belongs to another inventory, or is no rollout store (an earlier dfu-update's JSON state
    /// file among them). A run that will not write it (`--plan`) opens it `readOnly`: it takes
    /// no lock and leaves no lock file.
    public init(
        url: URL, inventory: String, source: RolloutInventory = RolloutInventory(bytes: Data(), folder: ""),
        describe: @escaping @Sendable (FleetDeviceReport) -> Data? = FleetStateFile.essentials,
        readOnly: Bool = false
    ) async throws(FleetInventoryError) {
        self.url = url
        self.rollout = inventory
        self.source = source
        self.describe = describe
        runLock = readOnly ? nil : try RunLock(stateFile: url)
        guard FileManager.default.fileExists(atPath: url.path) else {
            done = Locked([:])
            store = Locked(nil)
            return
        }
        let opened = try Self.open(url)
        do {
            let rollouts = try await opened.rollouts()
            guard rollouts.allSatisfy({ $0 == inventory }) else {
                throw FleetInventoryError(try await Self.notThisInventorys(url, opened, rollouts: rollouts))
            }
            let status = rollouts.isEmpty ? nil : try await opened.status(of: inventory)
            if let state = status?.summary.state,
                let refusal = Self.stoppedAtStart(url, state, rollout: inventory)
            {
                throw FleetInventoryError(refusal)
            }
            let devices = status?.devices ?? []
            done = Locked(Dictionary(uniqueKeysWithValues: devices.compactMap(Self.entry)))
        } catch let error as FleetInventoryError {
            throw error
        } catch {
            throw FleetInventoryError("\(url.path): the state file could not be read (\(error))")
        }
        store = Locked(opened)
    }

    /// The entry of a device finished in an earlier run, if any.
    public func entry(for device: String) -> Entry? { done.withLock { $0[device] } }

    /// Records a device that completed or was up to date, after every write before it;
    /// `devices` (the inventory's, in order) make the rollout when it is not there yet.
    /// `failed` hears of a write that failed, `halt` (once) of the rollout found paused
    /// or cancelled.
    func record(
        _ report: FleetDeviceReport, devices: [String], halt: @escaping @Sendable (String) -> Void,
        failed: @escaping @Sendable (String) -> Void
    ) {
        guard let result = DeviceResult(report.result), result == .completed || result == .skipped else {
            return
        }
        let entry = Entry(result: result.rawValue, package: report.package, versionAfter: report.versionAfter)
        let known = done.withLock { done in
            defer { done[report.device] = done[report.device] ?? entry }
            return done[report.device] != nil
        }
        guard !known else { return }  // recorded already (an earlier run's result is final)
        let outcome = DeviceOutcome(result: result, report: describe(report))
        lastWrite.withLock { last in
            let previous = last
            last = Task {
                await previous?.value
                guard !self.stopped.withLock({ $0 }) else { return }
                do {
                    try await self.write(report.device, outcome, devices: devices)
                } catch let stopped as RolloutStopped {
                    self.stopped.withLock { $0 = true }
                    halt(Self.stoppedWhileRunning(self.url, stopped, rollout: self.rollout))
                } catch {
                    failed("could not write the state file \(self.url.path): \(error)")
                }
            }
        }
    }

    /// Waits until every device recorded so far is in the file (or its write failed).
    func settled() async {
        await lastWrite.withLock { $0 }?.value
    }

    /// Waits until every recorded device is in the file, then closes it with its write-ahead
    /// log folded in, so that the file alone holds the run (a later write opens it again).
    func written() async {
        await settled()
        await store.withLock { store in
            defer { store = nil }
            return store
        }?.close()
        runLock?.release()
    }

    /// The device's result, reported as a gateway named `fleet` reports one.
    private func write(_ device: String, _ outcome: DeviceOutcome, devices: [String]) async throws {
        let store = try await opened(devices: devices)
        // the lease only spans the claim and the report that follows it at once
        let claims = try await store.claim(
            rollout, for: "fleet", among: [device], limit: 1, lease: .seconds(10))
        guard let claim = claims.first else {
            let state = try await store.summary(of: rollout).state
            if state == .paused || state == .cancelled { throw RolloutStopped(state: state) }
            throw FleetInventoryError(
                "its rollout \(rollout) did not let the fleet claim \(device) "
                    + "(another process holds the device)")
        }
        try await store.report(claim, outcome)
    }

    /// The store, opened (and the rollout made) at the first write into a new file.
    private func opened(devices: [String]) async throws -> EmbeddedRolloutStore {
        if let store = store.withLock({ $0 }) { return store }
        let opened = try EmbeddedRolloutStore(path: url.path)
        if try await opened.rollouts().isEmpty {
            // the store only records: the fleet applies its canary and failure limit itself
            try await opened.create(
                RolloutSpec(
                    name: rollout, packages: [],
                    devices: devices.map { RolloutDevice(device: $0, packageSHA256: nil) },
                    inventory: source))
        }
        store.withLock { $0 = opened }
        return opened
    }
}
