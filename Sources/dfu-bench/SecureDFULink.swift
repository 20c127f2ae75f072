import ArgumentParser
import BlueZ
import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU

/// A Secure DFU bootloader's control point and packet characteristics on one connection, for the
/// bench's own sequential clients (`LinkProbe`, `PlainSecureClient`). They run as the engine does,
/// on the D-Bus connection's thread, and wait for notifications in the engine's
/// `NotificationInbox`: the comparison is of what each client asks of the device, not of task
/// hops and timers.
struct SecureDFULink {
    let controlPoint: any GATTCharacteristic
    let packet: any GATTCharacteristic
    let responses: NotificationInbox

    static let timeout = Duration.seconds(20)

    /// Connects through `central`, subscribes to the control point, runs `body` (on the
    /// central's task executor) and disconnects.
    static func withLink<T>(
        central: BlueZCentral, address: String, _ body: (SecureDFULink) async throws -> T
    ) async throws -> T {
        try await withTaskExecutorPreference(central.taskExecutor) {
            let peripheral = try await central.connectPeripheral(
                DeviceIdentifier(address), timeout: .seconds(30))
            do {
                let uuids = DFUUUIDs()
                guard let service = try await peripheral.service(uuids.secureService),
                    let controlPoint = service.characteristic(uuids.secureControlPoint),
                    let packet = service.characteristic(uuids.securePacket)
                else { throw ValidationError("\(address) has no Secure DFU service") }
                let responses = NotificationInbox(
                    try await controlPoint.subscribe(timeout: timeout), device: address,
                    executor: central.taskExecutor)
                defer { responses.close() }
                let value = try await body(
                    SecureDFULink(controlPoint: controlPoint, packet: packet, responses: responses))
                await peripheral.disconnect()
                return value
            } catch {
                await peripheral.disconnect()
                throw error
            }
        }
    }
    /// The packet size the engine uses on this link with default options.
    var packetBytes: Int {
        get async {
            await PacketStreamer.securePacketSize(for: packet, maximum: DFUOptions().maximumPacketSize)
        }
    }

    /// Writes `request` and returns its response (a receipt still in flight is skipped).
    func request(_ request: SecureDFURequest) async throws -> SecureDFUResponse {
        try await write(request)
        return try await response(to: request)
    }

    /// Writes `request`; returns once the device took it (the write response).
    func write(_ request: SecureDFURequest) async throws {
        try await controlPoint.write(request.encoded, timeout: Self.timeout)
    }

    /// The response to `request`, written before (a receipt still in flight is skipped).
    func response(to request: SecureDFURequest) async throws -> SecureDFUResponse {
        while true {
            let response = try await nextNotification()
            if response.opCode == request.opCode { return response }
        }
    }

    /// Writes `request` and fails unless the device answers with success.
    func require(_ request: SecureDFURequest) async throws -> SecureDFUResponse {
        let response = try await self.request(request)
        if case .failure(let result, let extended) = response.outcome {
            throw ValidationError("\(request) failed: \(result) \(extended.map { "\($0)" } ?? "")")
        }
        return response
    }

    /// The next control point notification, decoded.
    func nextNotification() async throws -> SecureDFUResponse {
        try SecureDFUResponse(
            decoding: try await responses.next(
                timeout: Self.timeout, waitingFor: "a control point notification"))
    }

    /// Waits for a packet receipt: a notification for Calculate Checksum's op code, whatever its
    /// outcome (a packet outside an object is receipted with a failure).
    func receipt() async throws -> SecureDFUResponse.Outcome {
        let notification = try await nextNotification()
        guard notification.opCode == SecureDFURequest.calculateChecksum.opCode else {
            throw ValidationError("expected a packet receipt, got \(notification)")
        }
        return notification.outcome
    }
}
