import FirmwareUpdate
import GATT
import NordicDFU

/// Each device's passkey source and bond (docs/pairing.md, "Fleets and rollouts"): the central
/// asks the device's own source when it pairs, and a bond the run made is removed once the device
/// is done, unless the options keep bonds.
extension FleetRun {
    /// What `entry`'s device needs: the inventory's word, else the options' (the command line).
    func security(for entry: FleetDeviceEntry, info: FleetDeviceInfo) -> DeviceSecurity {
        fleet.inventory.security(for: entry, info: info).over(options.security)
    }

    /// Why a device cannot be paired as `security` says, before it is asked: authenticated
    /// pairing with no passkey source (and no numeric comparison accepted) would only fail.
    func unpairable(_ device: String, security: DeviceSecurity) -> DFUFailure? {
        guard security.level == .authenticated, security.passkey == nil, !options.acceptsNumericComparison
        else { return nil }
        return DFUFailure(
            .securityRequired, device: device,
            detail:
                "the inventory says it needs authenticated pairing (a passkey) and names no passkey source",
            advice:
                "name one for it in the inventory (passkey_file, passkey_env or passkey_command), or give "
                + "--passkey-file, --passkey-env or --passkey-command (docs/pairing.md)")
    }

    /// Before a connection to the device: gives the central its passkey source and, the first
    /// time, notes whether bluetoothd held a bond for it already (or removes it, to pair again).
    func preparePairing(
        _ device: String, address: BluetoothAddress, central: any GATTCentral, security: DeviceSecurity
    ) async {
        guard let central = central as? any PairingCentral else { return }
        central.usePasskey(security.passkey, for: address)
        guard bonds.withLock({ $0[device] == nil }) else { return }
        let bond =
            (try? await RunBond(noting: address, on: central, pairAgain: options.removesBondsFirst))
            ?? RunBond(keeping: address)
        bonds.withLock { $0[device] = bond }
    }

    /// After the device's last connection: removes the bond this run made, unless kept.
    func finishPairing(_ device: String, central: any GATTCentral) async {
        guard let central = central as? any PairingCentral,
            let bond = bonds.withLock({ $0.removeValue(forKey: device) })
        else { return }
        central.usePasskey(nil, for: bond.address)
        guard let removal = await bond.finish(on: central, keep: options.keepsBonds) else { return }
        emit(.device(device, .log(removal.removed ? .info : .warning, removal.message)))
    }
}
