import BlueZ
import GATT
import Synchronization
import XCTest

/// Writes in both modes and notifications, through bluetoothd's sockets and through its plain
/// D-Bus methods.
final class WriteAndNotifyTests: SystemTestCase {
    private func options(acquire: Bool) -> BlueZCentral.Options {
        var options = BlueZCentral.Options()
        options.acquireWrite = acquire
        options.acquireNotify = acquire
        return options
    }

    func testWriteRequestIsAnsweredByANotificationThroughAcquireNotify() async throws {
        try await checkControlPointRoundTrips(options(acquire: true))
    }

    func testWriteRequestIsAnsweredByANotificationThroughStartNotify() async throws {
        try await checkControlPointRoundTrips(options(acquire: false))
    }

    func testWriteCommandsArriveInOrderThroughAcquireWrite() async throws {
        try await checkWriteCommands(options(acquire: true))
    }

    func testWriteCommandsArriveInOrderThroughWriteValue() async throws {
        try await checkWriteCommands(options(acquire: false))
    }

    /// A server's acquired socket and its `WriteValue` calls stay in over-the-air order: write
    /// commands through the socket, each burst followed by a control-point write request.
    func testAcquiredWritesKeepTheirOrderWithControlPointWrites() async throws {
        let link = try await connect(options(acquire: true))
        let packet = try await characteristic(TestPeripheral.acquiredPacket, of: link)
        let controlPoint = try await characteristic(TestPeripheral.controlPoint, of: link)
        // bluetoothd 5.66 garbles writes that arrive while it acquires the socket: the first
        // write is answered before the next one comes (docs/bluez-module.md)
        var sent: [[UInt8]] = [[0xAA]]
        try await packet.writeWithoutResponse([0xAA])
        try await peripheral.arrivals.wait(forCount: 1, timeout: .seconds(10))
        for burst in 0..<5 {
            for index in 0..<40 {
                let value = [UInt8(burst), UInt8(index)] + [UInt8](repeating: 0x5A, count: 18)
                sent.append(value)
                try await packet.writeWithoutResponse(value)
            }
            sent.append([0x03, UInt8(burst)])
            try await controlPoint.write([0x03, UInt8(burst)], timeout: .seconds(10))
        }
        try await peripheral.arrivals.wait(forCount: sent.count, timeout: .seconds(30))
        XCTAssertEqual(peripheral.arrivals.values, sent)
    }

    func testAWriteCommandLongerThanTheLinkAllowsIsRefused() async throws {
        let link = try await connect()
        let packet = try await characteristic(TestPeripheral.packet, of: link)
        let largest = await packet.maximumWriteWithoutResponseLength
        do {
            try await packet.writeWithoutResponse([UInt8](repeating: 1, count: largest + 1))
            XCTFail("a \(largest + 1)-byte write command was accepted")
        } catch GATTError.operationFailed {}
        // the largest one goes through whole
        try await packet.writeWithoutResponse([UInt8](repeating: 2, count: largest))
        try await peripheral.packets.wait(forCount: 1, timeout: .seconds(10))
        XCTAssertEqual(peripheral.packets.values.first?.count, largest)
    }

    /// Three control-point requests, each answered with `60 <opcode> 01`.
    private func checkControlPointRoundTrips(_ options: BlueZCentral.Options) async throws {
        let link = try await connect(options)
        let controlPoint = try await characteristic(TestPeripheral.controlPoint, of: link)
        let notifications = StreamRecorder(try await controlPoint.subscribe(timeout: .seconds(10)))
        defer { notifications.stop() }
        try await peripheral.waitForSubscription(to: TestPeripheral.controlPoint)
        for (index, opcode) in [UInt8(0x01), 0x03, 0x06].enumerated() {
            try await controlPoint.write([opcode, 0x01], timeout: .seconds(10))
            try await notifications.log.wait(forCount: index + 1, timeout: .seconds(10))
            XCTAssertEqual(notifications.log.values.last, [0x60, opcode, 0x01])
        }
        XCTAssertEqual(peripheral.controlWrites.values, [[0x01, 0x01], [0x03, 0x01], [0x06, 0x01]])
    }

    /// 200 numbered write commands of 20 and 244 bytes arrive complete and in order.
    private func checkWriteCommands(_ options: BlueZCentral.Options) async throws {
        let link = try await connect(options)
        let packet = try await characteristic(TestPeripheral.packet, of: link)
        var sent: [[UInt8]] = []
        for index in 0..<200 {
            let size = index.isMultiple(of: 2) ? 20 : 244
            var value = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size)
            value[0] = UInt8(index >> 8)
            value[1] = UInt8(index & 0xFF)
            sent.append(value)
            try await packet.writeWithoutResponse(value)
        }
        let received = try await peripheral.packets.wait(forCount: sent.count, timeout: .seconds(30))
        XCTAssertEqual(received, sent.count)
        XCTAssertEqual(peripheral.packets.values, sent)
    }
}

/// Iterates a notification stream in the background, logging the values and how it ended.
final class StreamRecorder: Sendable {
    let log: PacketLog
    private let ending: Ending
    private let task: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<[UInt8], any Error>) {
        let log = PacketLog()
        let ending = Ending()
        self.log = log
        self.ending = ending
        task = Task {
            do {
                for try await value in stream { log.append(value) }
                ending.set(.success(()))
            } catch {
                ending.set(.failure(error))
            }
        }
    }

    /// How the stream ended, waiting at most `timeout`; `nil` when it has not ended.
    func end(within timeout: Duration) async throws -> Result<Void, any Error>? {
        let deadline = ContinuousClock.now + timeout
        while ending.value == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return ending.value
    }

    /// Stops iterating (unsubscribes).
    func stop() { task.cancel() }
}

/// How a stream ended, set once.
final class Ending: Sendable {
    private let result = Mutex<Result<Void, any Error>?>(nil)
    var value: Result<Void, any Error>? { result.withLock { $0 } }
    func set(_ value: Result<Void, any Error>) { result.withLock { $0 = $0 ?? value } }
}
