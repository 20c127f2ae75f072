import GATT
import NordicDFU

extension LegacyDFUResponse: ControlPointNotification {
    var requestOpCode: UInt8 {
        switch self {
        case .response(let opCode, _): opCode
        case .packetReceipt: Self.packetReceiptCode
        case .receivedImageSize: LegacyDFURequest.reportReceivedImageSize.opCode
        }
    }

    var hasReceiptForm: Bool {
        if case .packetReceipt = self { true } else { false }
    }
}

/// Requests and responses on the Legacy DFU control point, over the shared channel.
struct LegacyControlPoint {
    let channel: ControlPointChannel<LegacyDFUResponse>

    private var session: UpdateSession { channel.session }

    /// Writes `request`; a packet receipt request restarts the device's receipt count.
    func write(_ request: LegacyDFURequest) async throws {
        try await channel.write(request.encoded)
        if case .packetReceiptNotificationRequest(let interval) = request {
            channel.ledger.restart(interval: Int(interval))
        }
    }

    /// The status the device answered `request` with, receipts before it taken.
    func status(of request: LegacyDFURequest) async throws -> LegacyDFUStatus {
        let response = try await channel.response(
            to: request.opCode, timeout: session.options.responseTimeout, describing: "\(request)")
        guard case .response(_, let status) = response else {
            throw session.failure(.unsupportedResponse, "expected a status for \(request), got \(response)")
        }
        return status
    }

    /// Waits for the answer to `request`; any status but success throws the matching `DFUError`.
    func require(_ request: LegacyDFURequest) async throws {
        let status = try await status(of: request)
        guard status == .success else { throw remoteFailure(request, status: status) }
    }

    func remoteFailure(_ request: LegacyDFURequest, status: LegacyDFUStatus) -> DFUFailure {
        session.failure(
            DFUError(legacyStatus: status), "the bootloader answered \(request) with status \(status)")
    }
}
