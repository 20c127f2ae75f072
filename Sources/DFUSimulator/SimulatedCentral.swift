import GATT

/// A `GATTCentral` whose devices are simulated nRF5 devices (docs/simulator.md): application
/// firmware with buttonless or Legacy DFU, Secure and Legacy bootloaders, flash and link models,
/// faults. All its devices share one virtual clock, `linkTime`.
///
/// ```swift
/// let central = try SimulatedCentral(devices: [SimulatedDeviceConfiguration(kind: .secureApp)])
/// let peripheral = try await central.connect(DeviceIdentifier("C0:DE:00:00:00:10"), timeout: .seconds(10))
/// ```
public final class SimulatedCentral: GATTCentral {
    let world: SimulationWorld
    /// The virtual clock all hosted devices' links and flash run on.
    public let linkTime: any LinkTime

    /// Hosts `devices`; throws when a configuration is unusable or two share an address.
    public init(devices: [SimulatedDeviceConfiguration]) throws(SimulatorConfigurationError) {
        for device in devices { try device.validate() }
        let addresses = devices.map(\.address)
        guard Set(addresses).count == addresses.count else {
            throw SimulatorConfigurationError("two simulated devices share an address")
        }
        world = SimulationWorld(devices: devices)
        linkTime = SimulatedLinkTime(world: world)
    }

    /// Reports every hosted device that advertises now and any that starts advertising before
    /// `timeout` (real time) passes.
    public func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Advertisement.self)
        let world = world
        let id = world.addScanner(filter, continuation: continuation)
        let deadline = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        continuation.onTermination = { _ in
            deadline.cancel()
            world.removeScanner(id)
        }
        return stream
    }

    /// Connects to the device advertising at that address or with that name now; fails at once
    /// when none does (or a `reject-connect` fault refuses). Costs `connectionSetup` virtual time,
    /// and with a real-time factor that share of it in real time, as a GATT operation does.
    public func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let (index, connection, snapshot) = try world.connect(device)
        let timing = snapshot.core.timing
        if timing.realTimeFactor > 0 {
            // not cut short by cancellation: the link is up, and its caller ends it
            try? await Task.sleep(for: timing.connectionSetup * timing.realTimeFactor)
        }
        return SimulatedPeripheral(world: world, device: index, connection: connection, snapshot: snapshot)
    }

    /// What the device named by `identifier` (its address or name now or as configured, or its
    /// application's address) holds and runs; nil when no device matches.
    public func snapshot(of identifier: DeviceIdentifier) -> DeviceSnapshot? {
        world.state.withLock { state in
            state.devices.first { $0.matches(identifier) }.map(DeviceSnapshot.init)
        }
    }

    /// Stops the faults of the device named by `identifier` (`--sim-fault`); what it holds and
    /// runs stays. Returns false when no device matches.
    @discardableResult
    public func clearFaults(of identifier: DeviceIdentifier) -> Bool {
        world.state.withLock { state in
            guard let index = state.devices.firstIndex(where: { $0.matches(identifier) }) else {
                return false
            }
            state.devices[index].core.clearFaults()
            return true
        }
    }

    /// Snapshots of every device, in configuration order.
    public var snapshots: [DeviceSnapshot] {
        world.state.withLock { state in state.devices.map(DeviceSnapshot.init) }
    }
}
