import GATT
import NordicDFU

/// An application with the Device Information Service and a way into the bootloader: buttonless
/// Secure DFU without or with bonds (protocol doc §2.9), or the Legacy DFU service at version 0.1
/// (§1.9).
struct ApplicationFirmware: Sendable {
    enum DFUEntry: Sendable {
        case buttonlessWithoutBonds
        case buttonlessWithBonds
        case legacy
    }

    let entry: DFUEntry
    private let uuids = DFUUUIDs()

    init(entry: DFUEntry) { self.entry = entry }

    var services: [ServiceSpec] {
        switch entry {
        case .buttonlessWithoutBonds: GATTLayout.secureApplication(bonded: false)
        case .buttonlessWithBonds: GATTLayout.secureApplication(bonded: true)
        case .legacy: GATTLayout.legacyApplication
        }
    }

    /// What it advertises besides its name.
    var advertisedServices: [BluetoothUUID] {
        entry == .legacy ? [uuids.legacyService] : [uuids.secureService]
    }

    func write(
        _ characteristic: BluetoothUUID, _ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore
    )
        -> DeviceOutput
    {
        entry == .legacy
            ? legacyControlPoint(bytes, at: time) : buttonless(characteristic, bytes, at: time, core: &core)
    }

    private func buttonless(
        _ characteristic: BluetoothUUID, _ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore
    )
        -> DeviceOutput
    {
        let request: ButtonlessDFURequest
        do {
            request = try ButtonlessDFURequest(decoding: bytes)
        } catch {
            return .notify(
                characteristic, ButtonlessDFUResponse(opCode: error.opCode, result: error.result).encoded,
                at: time)
        }
        switch request {
        case .setAdvertisementName(let name):
            // Only the without-bonds characteristic (SDK 14+) lets the name be set.
            guard entry == .buttonlessWithoutBonds else {
                return .notify(
                    characteristic,
                    ButtonlessDFUResponse(opCode: request.opCode, result: .opCodeNotSupported).encoded,
                    at: time)
            }
            core.bootloaderName = String(decoding: name, as: UTF8.self)
            return .notify(
                characteristic, ButtonlessDFUResponse(opCode: request.opCode, result: .success).encoded,
                at: time)
        case .enterBootloader:
            return DeviceOutput.notify(
                characteristic, ButtonlessDFUResponse(opCode: request.opCode, result: .success).encoded,
                at: time
            ).resetting(to: .bootloader(keepsAddress: entry == .buttonlessWithBonds))
        }
    }

    /// An SDK 7–11 application jumps on Start DFU (`01 04`) without answering, and hands its peer
    /// data to the bootloader, which therefore keeps the address.
    private func legacyControlPoint(_ bytes: [UInt8], at time: Nanoseconds) -> DeviceOutput {
        guard let opCode = bytes.first else { return .none }
        guard opCode == LegacyDFURequest.startDFU(.application).opCode else {
            return .notify(
                uuids.legacyControlPoint,
                LegacyDFUResponse.response(opCode: opCode, status: .notSupported).encoded, at: time)
        }
        return .reset(to: .bootloader(keepsAddress: true))
    }
}
