import DFUSupport
import GATT
import NordicDFU

/// One simulated device (the same model as `SimulatedCentral`'s: firmware, bootloaders, flash,
/// faults) driven by a real link in real time: a host such as `dfu-sim` serves its GATT table on
/// a Bluetooth adapter, hands it every value a central writes, and carries out what it answers.
///
/// The host's loop:
/// - ``persona`` says what to serve and advertise; serve it, and call ``connectionAttempt()``
///   when a central connects (false: drop that link, a `reject-connect` fault).
/// - ``write(_:_:)`` for every write (request or command), in arrival order. Answer the write at
///   once, then send the reaction's notifications after their delays, in order.
/// - When the reaction says `dropsLink`, drop the link once its notifications are out, and call
///   ``linkDropped()`` (also when the central drops it). When it says `reboots`, stop serving,
///   wait `rebootDelay`, call ``reboot()`` and serve the new persona.
///
/// Device time is real time since `init`, so flash work takes as long as on an nRF52.
public final class RealTimeDevice: Sendable {
    private struct State {
        var device: SimulatedDevice
        var pendingReset: (target: BootTarget, delay: Nanoseconds)?
    }

    private let state: Locked<State>
    private let started = ContinuousClock.now

    /// A device configured as `configuration` (its `address` is where the application, or the
    /// bootloader of a kind that starts in one, advertises).
    public init(configuration: SimulatedDeviceConfiguration) throws(SimulatorConfigurationError) {
        try configuration.validate()
        state = Locked(State(device: SimulatedDevice(configuration: configuration)))
    }

    private var now: Nanoseconds { (ContinuousClock.now - started).nanoseconds }

    /// What the device runs, serves and advertises now.
    public var persona: Persona { state.withLock { Persona($0.device) } }

    /// What the device holds, as the contract's `simulator` event reports it.
    public var snapshot: DeviceSnapshot { state.withLock { DeviceSnapshot($0.device) } }

    /// Counts a central's connection; false when a `reject-connect` fault refuses it.
    public func connectionAttempt() -> Bool {
        state.withLock { $0.device.core.acceptsConnection() }
    }

    /// The value of a readable characteristic; nil when it has none.
    public func read(_ characteristic: BluetoothUUID) -> [UInt8]? {
        state.withLock { $0.device.firmware.read(characteristic, core: $0.device.core) }
    }

    /// Hands a written value to the running firmware; returns what the device does about it.
    public func write(_ characteristic: BluetoothUUID, _ value: [UInt8]) -> Reaction {
        state.withLock { state in
            let time = now
            let output = state.device.deliver(value, to: characteristic, at: time)
            var reaction = Reaction()
            for notification in output.notifications where !state.device.core.notificationIsLost() {
                reaction.notifications.append(
                    Reaction.Notification(
                        characteristic: notification.characteristic, value: notification.value,
                        after: max(0, notification.readyAt - time).duration))
            }
            reaction.dropsLink = output.dropsLink || output.reset != nil
            if let reset = output.reset {
                state.pendingReset = (reset.target, reset.extraDelay)
                reaction.rebootDelay =
                    (reset.extraDelay + state.device.core.timing.bootTime.nanoseconds).duration
            }
            return reaction
        }
    }

    /// The link dropped (the device dropped it, or the central did).
    public func linkDropped() {
        state.withLock { $0.device.firmware.linkDropped() }
    }

    /// Boots into what the last reset asked for (nothing happens when no reset is pending);
    /// returns the persona it runs.
    @discardableResult
    public func reboot() -> Persona {
        state.withLock { state in
            if let reset = state.pendingReset {
                state.device.start(reset.target, at: now)
                state.pendingReset = nil
            }
            return Persona(state.device)
        }
    }
}

extension SimulatedDevice {
    /// Hands a written value to the running firmware at device time `time`.
    mutating func deliver(_ value: [UInt8], to characteristic: BluetoothUUID, at time: Nanoseconds)
        -> DeviceOutput
    {
        // Take the firmware out so its buffers stay uniquely referenced while it runs.
        var running = firmware
        firmware = .off
        let output = running.write(characteristic, value, at: time, core: &core)
        if case .off = firmware { firmware = running }
        return output
    }
}
