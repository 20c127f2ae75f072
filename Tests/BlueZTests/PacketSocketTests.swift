import Foundation
import XCTest

@testable import BlueZ

/// `PacketSocket` on a `SOCK_SEQPACKET` pair, as bluetoothd hands out for `AcquireWrite`: each
/// packet of a batch arrives as a datagram of its own, in order, also when the batch fills the
/// socket's buffer and has to wait for room.
final class PacketSocketTests: XCTestCase {
    private var pair: (sender: PacketSocket, receiver: Int32)!

    override func setUpWithError() throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        pair = (PacketSocket(fileDescriptor: ends[0], mtu: 517), ends[1])
    }

    override func tearDown() {
        pair.sender.close()
        close(pair.receiver)
    }

    func testABatchArrivesAsOneDatagramPerPacketWithAShorterLastOne() throws {
        let bytes = (0..<1100).map { UInt8(truncatingIfNeeded: $0) }
        var sent = 0
        try pair.sender.send(bytes[100...], inDatagramsOf: 400, timeout: .seconds(5), sent: &sent)
        XCTAssertEqual(sent, 1000)
        XCTAssertEqual(
            receive(count: 3), [Array(bytes[100..<500]), Array(bytes[500..<900]), Array(bytes[900...])])
    }

    func testEmptyBytesAreOneEmptyDatagram() throws {
        var sent = 0
        try pair.sender.send([], inDatagramsOf: 20, timeout: .seconds(5), sent: &sent)
        XCTAssertEqual(sent, 0)
        XCTAssertEqual(receive(count: 1), [[]])
    }

    func testABatchLargerThanTheSocketBufferWaitsForRoomAndKeepsItsOrder() async throws {
        // far more than a unix socket buffers, and more than one sendmmsg call sends
        let packets = 2000
        let bytes = (0..<packets * 500).map { UInt8(truncatingIfNeeded: $0 / 500) }
        let receiver = pair.receiver
        let received = Task.detached { () -> [[UInt8]] in
            var values: [[UInt8]] = []
            var buffer = [UInt8](repeating: 0, count: 600)
            while values.count < packets {
                let count = recv(receiver, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                values.append(Array(buffer[0..<count]))
            }
            return values
        }
        var sent = 0
        try pair.sender.send(bytes[...], inDatagramsOf: 500, timeout: .seconds(10), sent: &sent)
        let values = await received.value
        XCTAssertEqual(sent, bytes.count)
        XCTAssertEqual(values.count, packets)
        XCTAssertEqual(values.map(\.count), Array(repeating: 500, count: packets))
        XCTAssertEqual(values.map(\.first), (0..<packets).map { UInt8(truncatingIfNeeded: $0) })
    }

    func testAHungUpPeerFailsTheBatchWithNothingSent() {
        close(pair.receiver)
        pair.receiver = -1
        var sent = 0
        XCTAssertThrowsError(
            try pair.sender.send([1, 2, 3][...], inDatagramsOf: 1, timeout: .seconds(1), sent: &sent)
        ) {
            guard case .hungUp = $0 as? PacketSocket.Failure else {
                return XCTFail("expected a hang-up, got \($0)")
            }
        }
        XCTAssertEqual(sent, 0)
    }

    private func receive(count: Int) -> [[UInt8]] {
        var buffer = [UInt8](repeating: 0, count: 600)
        return (0..<count).map { _ in
            let length = recv(pair.receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return length >= 0 ? Array(buffer[0..<length]) : [0xEE]
        }
    }
}
