import GATT
import NordicDFU

/// Switches an application into its bootloader (protocol doc §1.9, §2.9).
struct ButtonlessJump {
    let session: UpdateSession
    /// Learns the name the bootloader will advertise.
    let runState: NordicRunState

    private var options: DFUOptions { session.options }

    /// Secure buttonless: optionally names the bootloader, then asks the application to reset
    /// into it and waits for the link to drop.
    func secure(
        _ characteristic: any GATTCharacteristic, kind: ButtonlessKind, peripheral: any GATTPeripheral
    ) async throws {
        let channel = try await ControlPointChannel<ButtonlessDFUResponse>.open(
            characteristic, device: peripheral.address.description, session: session)
        defer { channel.close() }
        let experimental = kind == .experimental
        if kind == .withoutBonds, let name = advertisingName() {
            let bytes = ButtonlessDFURequest.advertisementName(name)
            let request = ButtonlessDFURequest.setAdvertisementName(bytes)
            do {
                try await channel.write(request.encoded)
                let response = try await channel.response(
                    to: request.opCode, timeout: options.responseTimeout, describing: "Set advertisement name"
                )
                switch response.result {
                case .success:
                    runState.whereabouts.bootloaderName = String(decoding: bytes, as: UTF8.self)
                    session.log(
                        .info, "the bootloader will advertise as \(runState.whereabouts.bootloaderName!)")
                case .opCodeNotSupported:
                    session.log(
                        .info, "the application cannot rename the bootloader; going on without a name")
                default:
                    throw remoteFailure(response.result, experimental: false, what: "Set advertisement name")
                }
            } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed {
                // The answer was lost; the name may be set. Look for both the name and the address.
                runState.whereabouts.bootloaderName = String(decoding: bytes, as: UTF8.self)
                session.log(.info, "no answer to Set advertisement name; going on")
            } catch let failure as DFUFailure where failure.error == .deviceDisconnected {
                throw session.failure(
                    .deviceDisconnected,
                    "the application dropped the link on Set advertisement name; its buttonless service lacks "
                        + "ble_dfu_buttonless_async_svci_init() — disable the alternative advertising name")
            }
        }
        do {
            let request = ButtonlessDFURequest.enterBootloader
            try await channel.write(request.encoded)
            let response = try await channel.response(
                to: request.opCode, timeout: options.responseTimeout, describing: "Enter bootloader")
            guard response.result == .success else {
                throw remoteFailure(response.result, experimental: experimental, what: "Enter bootloader")
            }
        } catch let failure as DFUFailure
            where failure.error == .deviceDisconnected || failure.error == .receivingNotificationFailed
        {
            // The application may reset before its answer reaches us (or the answer is lost):
            // whether it jumped shows when the bootloader appears.
        }
        await waitForReset(peripheral)
    }

    /// Legacy jump: Start DFU with the application type on the application's control point. The
    /// application resets without answering.
    func legacy(_ controlPoint: any GATTCharacteristic, peripheral: any GATTPeripheral) async throws {
        let channel = try await ControlPointChannel<LegacyDFUResponse>.open(
            controlPoint, device: peripheral.address.description, session: session)
        defer { channel.close() }
        try? await channel.write(LegacyDFURequest.startDFU(.application).encoded)
        await waitForReset(peripheral)
    }

    private func advertisingName() -> String? {
        switch options.nordic.alternativeAdvertisingName {
        case .disabled: return nil
        case .name(let name): return name
        case .random: return "Dfu" + String(Int.random(in: 100_000..<200_000)).dropFirst()
        }
    }

    private func remoteFailure(_ result: ButtonlessDFUResult, experimental: Bool, what: String) -> DFUFailure
    {
        session.failure(
            DFUError(buttonlessResult: result, experimental: experimental),
            "the application answered \(what) with \(result)")
    }

    /// Waits for the application to drop the link as it resets; then makes sure it is down.
    private func waitForReset(_ peripheral: any GATTPeripheral) async {
        do {
            try await peripheral.waitForDisconnection(timeout: options.responseTimeout)
        } catch {
            session.log(.info, "the application did not drop the link after the jump; disconnecting")
            await peripheral.disconnect()
        }
    }
}

extension ButtonlessDFUResponse: ControlPointNotification {
    var requestOpCode: UInt8 { opCode }
    var hasReceiptForm: Bool { false }
}
