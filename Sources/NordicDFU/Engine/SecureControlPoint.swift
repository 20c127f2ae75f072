import GATT

/// Requests and responses on the Secure DFU control point.
struct SecureControlPoint {
    let characteristic: any GATTCharacteristic
    let inbox: NotificationInbox
    let session: UpdateSession

    /// Sends `request` and waits (at most `timeout`, real time) for its response. Packet receipt
    /// notifications still in flight (op code 0x03) are skipped unless the request is Calculate
    /// Checksum, which first drops those already received.
    func send(_ request: SecureDFURequest, timeout: Duration) async throws -> SecureDFUResponse.Outcome {
        if request == .calculateChecksum { inbox.discardBuffered() }
        try await write(request.encoded, what: "\(request)")
        return try await response(to: request, timeout: timeout)
    }

    /// Like `send`, but any result other than success throws the matching remote `DFUError`.
    @discardableResult
    func require(_ request: SecureDFURequest, timeout: Duration) async throws -> SecureDFUResponse.Outcome {
        let outcome = try await send(request, timeout: timeout)
        if case .failure(let result, let extended) = outcome {
            throw remoteFailure(request, result: result, extended: extended)
        }
        return outcome
    }

    func remoteFailure(
        _ request: SecureDFURequest, result: SecureDFUResultCode, extended: SecureDFUExtendedError?
    ) -> DFUFailure {
        let error = DFUError(secureResult: result, extended: extended)
        let code = extended.map { " (extended error \($0))" } ?? ""
        return session.failure(error, "the bootloader answered \(request) with \(result)\(code)")
    }

    /// Waits for the next notification that is a packet receipt (or checksum) notification.
    func packetReceipt(timeout: Duration) async throws -> (offset: Int, crc: UInt32) {
        while true {
            let bytes = try await next(timeout: timeout, what: "packet receipt notification")
            let response = try decode(bytes)
            switch response.outcome {
            case .checksum(let offset, let crc) where response.opCode == 0x03:
                return (Int(offset), crc)
            case .failure(let result, let extended):
                throw remoteFailure(.calculateChecksum, result: result, extended: extended)
            default:
                continue
            }
        }
    }

    private func response(to request: SecureDFURequest, timeout: Duration) async throws
        -> SecureDFUResponse.Outcome
    {
        while true {
            let bytes = try await next(timeout: timeout, what: "the response to \(request)")
            let response = try decode(bytes)
            if response.opCode == request.opCode { return response.outcome }
            // A late packet receipt notification; anything else is out of step.
            guard response.opCode == SecureDFURequest.calculateChecksum.opCode else {
                throw session.failure(
                    .unsupportedResponse,
                    "expected the response to \(request), got \(bytes.hexString(separator: " "))")
            }
        }
    }

    private func decode(_ bytes: [UInt8]) throws -> SecureDFUResponse {
        do {
            return try SecureDFUResponse(decoding: bytes)
        } catch {
            throw session.failure(.unsupportedResponse, "\(error)")
        }
    }

    private func next(timeout: Duration, what: String) async throws -> [UInt8] {
        do {
            return try await inbox.next(timeout: timeout, waitingFor: what)
        } catch {
            throw session.mapped(error, during: .receivingNotificationFailed)
        }
    }

    private func write(_ bytes: [UInt8], what: String) async throws {
        do {
            try await characteristic.write(bytes, timeout: session.options.responseTimeout)
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
    }
}
