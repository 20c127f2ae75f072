import GATT
import NordicDFU

extension SecureDFUResponse: ControlPointNotification {
    var requestOpCode: UInt8 { opCode }
    /// A packet receipt is a Calculate Checksum response sent unasked (protocol doc §2.5).
    var hasReceiptForm: Bool { opCode == SecureDFURequest.calculateChecksum.opCode }
}

/// Requests and responses on the Secure DFU control point, over the shared channel.
struct SecureControlPoint {
    let channel: ControlPointChannel<SecureDFUResponse>

    private var session: UpdateSession { channel.session }

    /// Sends `request` and waits (at most `timeout`, real time) for its response.
    func send(_ request: SecureDFURequest, timeout: Duration) async throws -> SecureDFUResponse.Outcome {
        try await post(request)
        return try await answer(to: request, timeout: timeout)
    }

    /// Like `send`, but any result other than success throws the matching remote `DFUError`.
    @discardableResult
    func require(_ request: SecureDFURequest, timeout: Duration) async throws -> SecureDFUResponse.Outcome {
        try await post(request)
        return try await requireAnswer(to: request, timeout: timeout)
    }

    /// Writes `request` and returns once the device has it (the write's response), before its
    /// answer; `answer(to:timeout:)` takes that, and it comes before any later notification.
    /// Create and Set PRN restart the device's receipt count as they arrive (SDK 15–17
    /// `nrf_dfu_ble.c`).
    func post(_ request: SecureDFURequest) async throws {
        if request == .calculateChecksum, channel.ledger.isUncertain { try await resynchronize() }
        try await channel.write(request.encoded)
        switch request {
        case .create: channel.ledger.restart()
        case .setPacketReceiptNotification(let interval): channel.ledger.restart(interval: Int(interval))
        default: break
        }
    }

    /// Waits (at most `timeout`, real time) for the answer to `request`, already posted.
    func answer(to request: SecureDFURequest, timeout: Duration) async throws -> SecureDFUResponse.Outcome {
        try await channel.response(to: request.opCode, timeout: timeout, describing: "\(request)").outcome
    }

    /// Like `answer`, but any result other than success throws the matching remote `DFUError`.
    @discardableResult
    func requireAnswer(to request: SecureDFURequest, timeout: Duration) async throws
        -> SecureDFUResponse.Outcome
    {
        let outcome = try await answer(to: request, timeout: timeout)
        if case .failure(let result, let extended) = outcome {
            throw remoteFailure(request, result: result, extended: extended)
        }
        return outcome
    }

    /// Offset and CRC-32 of what the device holds of the current object's stream.
    func checksum() async throws -> (offset: Int, crc: UInt32) {
        let outcome = try await require(.calculateChecksum, timeout: session.options.notificationTimeout)
        guard case .checksum(let offset, let crc) = outcome else {
            throw session.failure(.unsupportedResponse, "Calculate Checksum returned no checksum")
        }
        return (Int(offset), crc)
    }

    /// Restarts the device's receipt count when the ledger lost track of it: every receipt sent
    /// before the Set PRN response is stale, and the response says where the count starts.
    private func resynchronize() async throws {
        let interval = UInt16(channel.ledger.interval)
        session.log(.info, "restarting the packet receipt count before asking for the checksum")
        try await require(
            .setPacketReceiptNotification(interval), timeout: session.options.notificationTimeout)
    }

    func remoteFailure(
        _ request: SecureDFURequest, result: SecureDFUResultCode, extended: SecureDFUExtendedError?
    ) -> DFUFailure {
        let error = DFUError(secureResult: result, extended: extended)
        let code = extended.map { " (extended error \($0))" } ?? ""
        return session.failure(error, "the bootloader answered \(request) with \(result)\(code)")
    }
}
