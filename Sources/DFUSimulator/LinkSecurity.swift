import GATT

/// What the in-process central does when a device refuses an operation for security: the
/// smallest model of bluetoothd with a Just Works agent (docs/simulator.md, "Bonds"). No keys
/// are exchanged; a bond is a flag on each side. The central encrypts with the bond it holds,
/// or pairs (Just Works, bonding) when it holds none, once per link, as `dfu-update` does
/// through BlueZ (docs/pairing.md).
extension SimulationWorld.State {
    /// Encrypts `link` before an operation on a characteristic that needs it; throws
    /// `GATTError.securityFailed` as the BlueZ central does when that fails.
    mutating func encrypt(_ link: inout SimulatedConnection, device index: Int, for operation: String) throws
    {
        guard !link.isEncrypted else { return }
        let address = devices[index].address.description
        guard !link.securityTried else {
            throw GATTError.securityFailed(
                device: address, failure: .securityRequired,
                reason: "\(operation) was refused for security again after the link's security failed once")
        }
        link.securityTried = true
        // the security request and its answer take a round trip
        let event = link.schedule.transmit(slots: 1, now: &now)
        link.schedule.centralReceived(inEvent: event + 1, now: &now)
        let identity = devices[index].core.identityAddress
        let isBootloader = devices[index].firmware.isBootloader
        switch (centralBonds.contains(identity), devices[index].core.holdsBond) {
        case (true, true):
            link.isEncrypted = true
        case (true, false):
            // the device answers the encryption request with "PIN or key missing"
            throw GATTError.securityFailed(
                device: address, failure: .bondLost,
                reason: "\(operation) needs an encrypted link and the device refused the bond this host "
                    + "holds (key missing): it lost its keys (bonds erased)")
        case (false, false) where !isBootloader:
            centralBonds.insert(identity)
            devices[index].core.holdsBond = true
            link.isEncrypted = true
        case (false, _):
            throw GATTError.securityFailed(
                device: address, failure: .pairingRefused,
                reason: isBootloader
                    ? "\(operation) needs the link encrypted with the bond the application handed its "
                        + "bootloader, this host holds none, and the bootloader takes no pairing"
                    : "\(operation) needs an encrypted link, this host holds no bond, and the device refuses "
                        + "to pair again with a central it holds a bond for; erase the device's bonds")
        }
    }
}
