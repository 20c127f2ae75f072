import GATT

/// Requests and responses on the Legacy DFU control point.
struct LegacyControlPoint {
    let characteristic: any GATTCharacteristic
    let inbox: NotificationInbox
    let session: UpdateSession

    func write(_ request: LegacyDFURequest) async throws {
        do {
            try await characteristic.write(request.encoded, timeout: session.options.responseTimeout)
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
    }

    /// Waits for the response to the request with `opCode`, skipping packet receipts; any status
    /// other than success throws the matching remote `DFUError`.
    func requireResponse(to opCode: UInt8, timeout: Duration) async throws {
        let status = try await response(to: opCode, timeout: timeout)
        guard status == .success else { throw remoteFailure(opCode: opCode, status: status) }
    }

    /// The status of the response to the request with `opCode`, skipping packet receipts.
    func response(to opCode: UInt8, timeout: Duration) async throws -> LegacyDFUStatus {
        while true {
            switch try await next(timeout: timeout, what: "the response to op code \(opCode)") {
            case .response(opCode, let status): return status
            case .packetReceipt: continue
            case let other:
                throw session.failure(
                    .unsupportedResponse, "expected the response to op code \(opCode), got \(other)")
            }
        }
    }

    /// The next packet receipt notification's byte count; a response in its place (the device
    /// reporting an error during the transfer) throws.
    func packetReceipt(timeout: Duration) async throws -> UInt32 {
        switch try await next(timeout: timeout, what: "packet receipt notification") {
        case .packetReceipt(let count): return count
        case .response(let opCode, let status) where status != .success:
            throw remoteFailure(opCode: opCode, status: status)
        case let other:
            throw session.failure(.unsupportedResponse, "expected a packet receipt, got \(other)")
        }
    }

    func remoteFailure(opCode: UInt8, status: LegacyDFUStatus) -> DFUFailure {
        session.failure(
            DFUError(legacyStatus: status), "the bootloader answered op code \(opCode) with status \(status)")
    }

    private func next(timeout: Duration, what: String) async throws -> LegacyDFUResponse {
        let bytes: [UInt8]
        do {
            bytes = try await inbox.next(timeout: timeout, waitingFor: what)
        } catch {
            throw session.mapped(error, during: .receivingNotificationFailed)
        }
        do {
            return try LegacyDFUResponse(decoding: bytes)
        } catch {
            throw session.failure(.unsupportedResponse, "\(error)")
        }
    }
}
