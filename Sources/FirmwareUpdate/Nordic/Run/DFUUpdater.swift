import NordicDFU

/// Updates one device by Nordic's Secure or Legacy DFU: connects, compares versions, switches it
/// into its bootloader when it runs an application, sends every part of the package (the device
/// reboots between parts) and reports what happens as events.
///
/// ```swift
/// let updater = DFUUpdater(package: package, central: central, device: DeviceIdentifier("C0:DE:00:00:00:10"))
/// let (controller, events) = updater.start()
/// for await event in events { … }   // the last event is `.result`
/// ```
public typealias DFUUpdater = PackageUpdater<DFUPackage>

extension UpdateRun: FamilyRun {
    /// A Nordic DFU failure gets its error's own advice.
    static func advice(for error: DFUError, options: DFUOptions) -> String? { nil }
}
