import DFUSupport
import GATT
import Logging
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// The rule that tells a Secure packet receipt from a Calculate Checksum response (they are the
/// same bytes), in exact delivery orders: every receipt due for packets written before a
/// request arrives before its response.
final class ControlPointChannelTests: XCTestCase {
    /// Issue 9's race at its root: three resent packets' receipts still in flight when
    /// Calculate Checksum is written; they arrive between the request and its response. The
    /// engine used to drop what had arrived and take the next `60 03` — the first stale receipt.
    func testCalculateChecksumTakesTheReceiptsDueBeforeItsResponse() async throws {
        let device = FakeControlPoint { request, deliver in
            guard request == SecureDFURequest.calculateChecksum.encoded else { return }
            for offset: UInt32 in [3660, 3904, 4096] { deliver(Self.checksum(offset)) }
            deliver(Self.checksum(4096))
        }
        let controlPoint = try SecureControlPoint(channel: device.channel())
        controlPoint.channel.ledger.restart(interval: 1)
        controlPoint.channel.ledger.count(packets: 3)
        let (offset, _) = try await controlPoint.checksum()
        XCTAssertEqual(offset, 4096)
        XCTAssertEqual(controlPoint.channel.ledger.due, 0)
    }

    /// A stale receipt that reports a refused packet is taken like any other receipt due.
    func testStaleFailedReceiptIsNotTheResponse() async throws {
        let device = FakeControlPoint { request, deliver in
            guard request == SecureDFURequest.calculateChecksum.encoded else { return }
            deliver(
                SecureDFUResponse(opCode: 0x03, outcome: .failure(.invalidParameter, extended: nil)).encoded)
            deliver(Self.checksum(4096))
        }
        let controlPoint = try SecureControlPoint(channel: device.channel())
        controlPoint.channel.ledger.restart(interval: 1)
        controlPoint.channel.ledger.count(packets: 1)
        let (offset, _) = try await controlPoint.checksum()
        XCTAssertEqual(offset, 4096)
    }

    /// When the count is lost (a receipt did not come: the bootloader did not count a dropped
    /// packet), Set PRN restarts it first; every receipt before its response is stale.
    func testUncertainCountIsRestartedBeforeCalculateChecksum() async throws {
        let device = FakeControlPoint { request, deliver in
            switch request.first {
            case SecureDFURequest.setPacketReceiptNotification(0).opCode:
                deliver(Self.checksum(3660))
                deliver(Self.checksum(3904))
                deliver(SecureDFUResponse(opCode: request[0], outcome: .success).encoded)
            case SecureDFURequest.calculateChecksum.opCode:
                deliver(Self.checksum(4096))
            default:
                break
            }
        }
        let controlPoint = try SecureControlPoint(channel: device.channel())
        controlPoint.channel.ledger.restart(interval: 17)
        controlPoint.channel.ledger.count(packets: 16)
        controlPoint.channel.ledger.isUncertain = true
        let (offset, _) = try await controlPoint.checksum()
        XCTAssertEqual(offset, 4096)
        XCTAssertEqual(device.requests.map(\.first), [0x02, 0x03])
        XCTAssertEqual(device.requests.first, SecureDFURequest.setPacketReceiptNotification(17).encoded)
    }

    static func checksum(_ offset: UInt32) -> [UInt8] {
        SecureDFUResponse(opCode: 0x03, outcome: .checksum(offset: offset, crc: offset)).encoded
    }
}

/// A control point that answers each write, in the order `answer` delivers.
final class FakeControlPoint: GATTCharacteristic {
    let uuid = DFUUUIDs().secureControlPoint
    let serviceUUID = DFUUUIDs().secureService
    let properties: CharacteristicProperties = [.write, .notify]
    var maximumWriteWithoutResponseLength: Int { 20 }

    private let answer: @Sendable ([UInt8], (_ notification: [UInt8]) -> Void) -> Void
    private let written = Locked<[[UInt8]]>([])
    private let notifications: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    init(answer: @escaping @Sendable ([UInt8], (_ notification: [UInt8]) -> Void) -> Void) {
        self.answer = answer
        (notifications, continuation) = AsyncThrowingStream.makeStream(
            of: [UInt8].self, throwing: (any Error).self)
    }

    var requests: [[UInt8]] { written.withLock { $0 } }

    /// A channel over this control point, in a session of its own.
    func channel() throws -> ControlPointChannel<SecureDFUResponse> {
        let central = ScriptedCentral(ScriptedLink(ScriptedSecureBootloader(imageSize: 0))) { _ in [] }
        let (_, events) = AsyncStream.makeStream(of: DFUEvent.self)
        var options = DFUOptions()
        options.notificationTimeout = .seconds(2)
        let session = UpdateSession(
            central: central, device: DeviceIdentifier("C0:DE:00:00:00:42"), options: options,
            controller: DFUController(), events: events, observer: { _ in }, logger: Logger(label: "test"),
            advice: { _ in nil })
        return ControlPointChannel(
            characteristic: self, inbox: NotificationInbox(notifications, device: "test"), session: session)
    }

    func read(timeout: Duration) async throws -> [UInt8] { [] }

    func write(_ value: [UInt8], timeout: Duration) async throws {
        written.withLock { $0.append(value) }
        let continuation = continuation
        answer(value) { continuation.yield($0) }
    }

    func writeWithoutResponse(_ value: [UInt8]) async throws {}

    func subscribe(timeout: Duration) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        notifications
    }
}
