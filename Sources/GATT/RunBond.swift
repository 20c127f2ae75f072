/// A device's bond as an update run found it, and what the run does with it when done with the
/// device (docs/pairing.md, "Bonds"): a bond this host held before the run stays, and so does
/// the one made after removing it to pair again; a bond the run made otherwise is removed, unless
/// kept, so that a host updating thousands of devices does not fill bluetoothd's and the
/// controller's storage. `flash` and a fleet's devices follow it alike.
public struct RunBond: Sendable {
    public let address: BluetoothAddress
    /// Whether a bond found at the end is the run's to remove.
    public let isTheRunsToRemove: Bool

    /// A bond the run leaves alone whatever it finds at the end.
    public init(keeping address: BluetoothAddress) {
        self.address = address
        isTheRunsToRemove = false
    }

    /// Notes the bond before the run's first connection to `address`; with `pairAgain`, removes
    /// it first (and what the central knows of the device) so that the run pairs again.
    public init(noting address: BluetoothAddress, on central: any PairingCentral, pairAgain: Bool)
        async throws
    {
        self.address = address
        if pairAgain {
            try await central.removeBond(address: address)
            isTheRunsToRemove = false
        } else {
            isTheRunsToRemove = try await !central.isPaired(address: address)
        }
    }

    /// What `finish` did, for the run's log.
    public struct Removal: Sendable, Equatable {
        /// False when the bond could not be removed (a warning).
        public var removed: Bool
        public var message: String
    }

    /// After the run's last connection to the device: removes the bond the run made, unless
    /// `keep`. Nil when there was nothing to do.
    public func finish(on central: any PairingCentral, keep: Bool) async -> Removal? {
        guard isTheRunsToRemove, !keep, (try? await central.isPaired(address: address)) == true else {
            return nil
        }
        do {
            try await central.removeBond(address: address)
            return Removal(
                removed: true,
                message: "removed the bond this run made with \(address) (--keep-bond keeps it)")
        } catch {
            return Removal(
                removed: false, message: "could not remove the bond this run made with \(address): \(error)")
        }
    }
}
