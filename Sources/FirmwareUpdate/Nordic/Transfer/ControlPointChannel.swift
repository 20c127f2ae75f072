import GATT
import NordicDFU

/// A notification on a DFU control point, as the channel sorts it.
protocol ControlPointNotification: Sendable {
    init(decoding bytes: [UInt8]) throws(WireFormatError)
    /// The op code of the request this answers (for a receipt, the op code receipts carry).
    var requestOpCode: UInt8 { get }
    /// Whether it has the form of a packet receipt notification. A Secure receipt has the form
    /// of a Calculate Checksum response too; the ledger's count decides which it is.
    var hasReceiptForm: Bool { get }
}

/// One control point: writes requests, and sorts what the device notifies into the response
/// to the request in flight and packet receipts, by op code and by the receipt count
/// (`PacketReceiptLedger`). Every wait is bounded in real time; transport errors map to one
/// `DFUError`. Used by the update's own task only.
final class ControlPointChannel<Notification: ControlPointNotification> {
    let characteristic: any GATTCharacteristic
    let session: UpdateSession
    private let inbox: NotificationInbox
    var ledger = PacketReceiptLedger()

    init(characteristic: any GATTCharacteristic, inbox: NotificationInbox, session: UpdateSession) {
        self.characteristic = characteristic
        self.inbox = inbox
        self.session = session
    }

    /// Subscribes to `characteristic`'s notifications.
    static func open(_ characteristic: any GATTCharacteristic, device: String, session: UpdateSession)
        async throws -> ControlPointChannel
    {
        ControlPointChannel(
            characteristic: characteristic,
            inbox: try await session.subscribe(to: characteristic, device: device), session: session)
    }

    /// Stops listening.
    func close() { inbox.close() }

    /// Writes a request (write with response).
    func write(_ bytes: [UInt8]) async throws {
        do {
            try await characteristic.write(bytes, timeout: session.options.responseTimeout)
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
    }

    /// Waits for the response to the request with `opCode`. Receipts for packets written before
    /// it come first and are taken (they are stale by now); anything else is out of step.
    func response(
        to opCode: UInt8, timeout: Duration, describing request: @autoclosure () -> String
    ) async throws -> Notification {
        while true {
            let notification = try await next(timeout: timeout, waitingFor: "the response to \(request())")
            if notification.hasReceiptForm, notification.requestOpCode != opCode || ledger.due > 0 {
                ledger.take()
                continue
            }
            if notification.requestOpCode == opCode { return notification }
            throw session.failure(
                .unsupportedResponse, "expected the response to \(request()), got \(notification)")
        }
    }

    /// The next notification while packets stream, when a receipt is due: a receipt (taken), or
    /// a response the device sent in its place (an error during the transfer). `nil` when none
    /// came in time; the ledger is then uncertain.
    func receipt() async throws -> Notification? {
        do {
            let notification = try await next(
                timeout: session.options.notificationTimeout, waitingFor: "packet receipt notification")
            if notification.hasReceiptForm { ledger.take() }
            return notification
        } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed {
            ledger.isUncertain = true
            session.log(.info, "a packet receipt notification did not arrive (\(failure.detail))")
            return nil
        }
    }

    private func next(timeout: Duration, waitingFor what: @autoclosure () -> String) async throws
        -> Notification
    {
        let bytes: [UInt8]
        do {
            bytes = try await inbox.next(timeout: timeout, waitingFor: what())
        } catch {
            throw session.mapped(error, during: .receivingNotificationFailed)
        }
        do {
            return try Notification(decoding: bytes)
        } catch {
            throw session.failure(.unsupportedResponse, "\(error)")
        }
    }
}
