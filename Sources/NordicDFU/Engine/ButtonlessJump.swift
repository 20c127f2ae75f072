import GATT

/// Switches an application into its bootloader (protocol doc §1.9, §2.9).
struct ButtonlessJump {
    let session: UpdateSession

    private var options: DFUOptions { session.options }

    /// Secure buttonless: optionally names the bootloader, then asks the application to reset
    /// into it and waits for the link to drop.
    func secure(
        _ characteristic: any GATTCharacteristic, kind: ButtonlessKind, peripheral: any GATTPeripheral
    ) async throws {
        let inbox = try await subscribe(characteristic, device: peripheral.address)
        defer { inbox.close() }
        let experimental = kind == .experimental
        if kind == .withoutBonds, let name = advertisingName() {
            let bytes = ButtonlessDFURequest.advertisementName(name)
            try await write(ButtonlessDFURequest.setAdvertisementName(bytes).encoded, to: characteristic)
            do {
                let response = try await response(from: inbox, opCode: 0x02)
                switch response.result {
                case .success:
                    session.bootloaderName = String(decoding: bytes, as: UTF8.self)
                    session.log(.info, "the bootloader will advertise as \(session.bootloaderName!)")
                case .opCodeNotSupported:
                    session.log(
                        .info, "the application cannot rename the bootloader; going on without a name")
                default:
                    throw remoteFailure(response.result, experimental: false, what: "Set advertisement name")
                }
            } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed {
                // The answer was lost; the name may be set. Look for both the name and the address.
                session.bootloaderName = String(decoding: bytes, as: UTF8.self)
                session.log(.warning, "no answer to Set advertisement name; going on")
            } catch let failure as DFUFailure where failure.error == .deviceDisconnected {
                throw session.failure(
                    .deviceDisconnected,
                    "the application dropped the link on Set advertisement name; its buttonless service lacks "
                        + "ble_dfu_buttonless_async_svci_init() — disable the alternative advertising name")
            }
        }
        do {
            try await write(ButtonlessDFURequest.enterBootloader.encoded, to: characteristic)
            let response = try await response(from: inbox, opCode: 0x01)
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
        let inbox = try await subscribe(controlPoint, device: peripheral.address)
        defer { inbox.close() }
        try? await controlPoint.write(
            LegacyDFURequest.startDFU(.application).encoded, timeout: options.responseTimeout)
        await waitForReset(peripheral)
    }

    private func advertisingName() -> String? {
        switch options.alternativeAdvertisingName {
        case .disabled: return nil
        case .name(let name): return name
        case .random: return "Dfu" + String(Int.random(in: 100_000..<200_000)).dropFirst()
        }
    }

    private func subscribe(_ characteristic: any GATTCharacteristic, device: String) async throws
        -> NotificationInbox
    {
        do {
            return NotificationInbox(
                try await characteristic.subscribe(timeout: options.notificationTimeout), device: device)
        } catch {
            throw session.mapped(error, during: .enablingControlPointFailed)
        }
    }

    private func write(_ bytes: [UInt8], to characteristic: any GATTCharacteristic) async throws {
        do {
            try await characteristic.write(bytes, timeout: options.responseTimeout)
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
    }

    private func response(from inbox: NotificationInbox, opCode: UInt8) async throws -> ButtonlessDFUResponse
    {
        while true {
            let bytes: [UInt8]
            do {
                bytes = try await inbox.next(
                    timeout: options.responseTimeout, waitingFor: "the buttonless response")
            } catch {
                throw session.mapped(error, during: .receivingNotificationFailed)
            }
            guard let response = try? ButtonlessDFUResponse(decoding: bytes) else {
                throw session.failure(
                    .unsupportedResponse, "unexpected buttonless response \(bytes.hexString(separator: " "))")
            }
            if response.opCode == opCode { return response }
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
            session.log(.warning, "the application did not drop the link after the jump; disconnecting")
            await peripheral.disconnect()
        }
    }
}
