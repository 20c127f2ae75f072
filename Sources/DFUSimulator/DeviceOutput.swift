import GATT

/// A value the device wants to send on a characteristic once it is ready.
struct PendingNotification: Sendable {
    var characteristic: BluetoothUUID
    var value: [UInt8]
    /// Device time at which the value is ready to go out (flash work may delay it).
    var readyAt: Nanoseconds
}

/// Where a device comes back after a reset.
enum BootTarget: Equatable, Sendable {
    /// The application when a valid one is installed, else the bootloader.
    case applicationIfValid
    /// The bootloader, advertising at the identity address (bond or peer data shared) or at
    /// address + 1.
    case bootloader(keepsAddress: Bool)
    /// nRF Connect SDK Bare Metal's firmware loader (an SMP device's slot 1), at the address
    /// with its lowest bit flipped.
    case firmwareLoader
}

/// What handling one write makes the device do, besides changing its own state.
struct DeviceOutput: Sendable {
    var notifications: [PendingNotification] = []
    /// The link drops after the notifications went out (a fault, or a reset).
    var dropsLink = false
    /// The device resets once `readyAt` (plus `extraDelay`, e.g. copying an image) has passed.
    var reset: (target: BootTarget, extraDelay: Nanoseconds)?

    static let none = DeviceOutput()

    static func notify(_ characteristic: BluetoothUUID, _ value: [UInt8], at readyAt: Nanoseconds) -> Self {
        DeviceOutput(notifications: [
            PendingNotification(characteristic: characteristic, value: value, readyAt: readyAt)
        ])
    }

    /// The link drops and the device resets into `target`, `extraDelay` after its last output.
    static func reset(to target: BootTarget, after extraDelay: Nanoseconds = 0) -> Self {
        DeviceOutput(dropsLink: true, reset: (target, extraDelay))
    }

    /// This output, then the link drops and the device resets into `target`.
    func resetting(to target: BootTarget, after extraDelay: Nanoseconds = 0) -> Self {
        var output = self
        output.dropsLink = true
        output.reset = (target, extraDelay)
        return output
    }
}
