import GATT

/// What commands, fleets and gateways need of a package, whatever its protocol family. Each
/// family's package conforms in its own folder (`Nordic/`, `SMP/`); everything
/// outside those folders reaches a family through this protocol, not a `switch`.
public protocol UpdatablePackage: Sendable {
    /// The protocol family the package is for.
    var dfuProtocol: DFUProtocol { get }

    /// The parts an update sends at most.
    var partCount: Int { get }

    /// The package without its first `count` parts: what a retry sends after the device took
    /// them (`DFUResult.partsActivated`).
    func remainder(afterParts count: Int) -> FirmwarePackage

    /// The application version the package installs, as a device reports it in its Firmware
    /// Revision String; nil when it has none or it cannot be written so.
    var installedVersion: DFUFirmwareVersion? { get }

    /// How long, at most, the device takes after its update ended before its new firmware
    /// advertises: a read-back of what it runs (a fleet's) looks this much longer.
    var settlingTime: Duration { get }

    /// Whether `DFUOptions.SMP.activation` (test, confirm, no reset) applies to its updates.
    var takesActivation: Bool { get }

    /// Whether it holds an image for an nRF5340's network core.
    var updatesNetworkCore: Bool { get }

    /// The smallest `DFUOptions.packetSize` an update of it can work with; nil when any will do.
    var smallestPacketSize: Int? { get }

    /// Verifies its signatures with the public key in `text` (as the user's key file holds it);
    /// throws when the family cannot read the text as its signing key.
    func verifySignatures(withKey text: String) throws(SigningKeyUnreadable) -> SignatureVerdict

    /// What ``checkDevicesCanVerify()`` throws: the family's own package error, whose class
    /// and message the commands report as a package reader's (`Never` for a family whose
    /// devices can check every package its reader accepts).
    associatedtype DeviceRefusal: Error

    /// Throws, before any connection, for a package the devices of its family would refuse
    /// only after it was sent (every updating command calls it).
    func checkDevicesCanVerify() throws(DeviceRefusal)

    /// `visitor`'s work on this package, done the family's way (`visitor.visit(self)`).
    func accept<Visitor: PackageFamilyVisitor>(_ visitor: Visitor) throws -> Visitor.Outcome

    /// The updater of this package's family for `device`.
    func updater(central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions)
        -> any FirmwareUpdater

    /// How the package's family runs an update (``PackageUpdater``); only the engine makes one.
    static var runner: FamilyRunner<Self> { get }
}

extension UpdatablePackage {
    public func updater(central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions)
        -> any FirmwareUpdater
    {
        PackageUpdater(package: self, central: central, device: device, options: options)
    }
}
