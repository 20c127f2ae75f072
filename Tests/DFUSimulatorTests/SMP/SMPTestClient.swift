import DFUSimulator
import DFUSupport
import GATT
import MCUmgr
import TestSupport
import XCTest

/// A small SMP client for the simulator tests: frames built by the `MCUmgr` module, written to
/// the SMP characteristic, answers joined by an `SMPReassembler`. Every wait has a real-time limit.
final class SMPTestClient {
    static let timeout = Duration.seconds(5)
    static let address = DeviceIdentifier("C0:DE:00:00:00:10")

    let central: SimulatedCentral
    let peripheral: any GATTPeripheral
    /// The link's ATT MTU.
    let mtu: Int
    private let characteristic: any GATTCharacteristic
    private let notifications: NotificationBox
    private var reassembler = SMPReassembler()
    private var sequence: UInt8 = 0

    /// Connects to the device at `address` and subscribes to the SMP characteristic.
    init(central: SimulatedCentral, address: DeviceIdentifier = address) async throws {
        self.central = central
        peripheral = try await central.connect(address, timeout: Self.timeout)
        mtu = await peripheral.mtu
        let services = try await peripheral.services()
        guard let smp = SMPUUIDs.characteristic(in: services) else {
            throw GATTError.attributeNotFound(SMPUUIDs.characteristic.uuidString)
        }
        characteristic = smp
        notifications = NotificationBox(try await smp.subscribe(timeout: Self.timeout).makeAsyncIterator())
    }

    /// A client of a new central holding one device of `configuration`.
    convenience init(_ configuration: SimulatedDeviceConfiguration) async throws {
        try await self.init(central: SimulatedCentral(devices: [configuration]))
    }

    /// The next request's frame.
    func frame(_ request: SMPRequest, version: SMPVersion = .v2) -> SMPFrame {
        sequence &+= 1
        return request.frame(sequence: sequence, version: version)
    }

    /// Sends `request` and returns its answer.
    func send(_ request: SMPRequest, version: SMPVersion = .v2, writeSize: Int? = nil) async throws
        -> SMPResponse
    {
        let request = frame(request, version: version)
        try await write(request.encoded, writeSize: writeSize)
        let answer = try await nextResponse()
        XCTAssertEqual(
            answer.header.sequence, request.header.sequence, "the answer repeats the sequence number")
        return answer
    }

    /// Writes `bytes` without response in pieces of at most `writeSize` (default ATT_MTU − 3).
    func write(_ bytes: [UInt8], writeSize: Int? = nil) async throws {
        let size = writeSize ?? mtu - 3
        for start in stride(from: 0, to: bytes.count, by: size) {
            try await characteristic.writeWithoutResponse(
                Array(bytes[start..<min(start + size, bytes.count)]))
        }
    }

    /// The next complete answer frame.
    func nextResponse() async throws -> SMPResponse {
        while true {
            guard let fragment = try await nextNotification() else { throw SMPTestClientError.streamEnded }
            if let frame = try reassembler.append(fragment).first { return try SMPResponse(frame: frame) }
        }
    }

    /// The next notification, as the device split the answer; nil when the link went down.
    func nextNotification() async throws -> [UInt8]? {
        let box = notifications
        return try await withRealTimeout(
            Self.timeout, orThrow: { SMPTestClientError.noAnswer }, { try await box.next() })
    }

    /// The image state list.
    func imageState() async throws -> ImageStateResponse {
        try ImageStateResponse(try await send(.imageState))
    }

    /// Uploads `image` from the offset the device answers to the first chunk, in chunks as large
    /// as one write allows; stops early after `stopAfter` bytes of data. Returns the last answer.
    @discardableResult
    func upload(
        _ image: [UInt8], sha: Bool = true, bufferSize: Int = 384, reassembles: Bool = false,
        stopAfter: Int? = nil
    ) async throws -> ImageUploadResponse {
        let limit = ImageUploadChunk.frameLimit(
            attMTU: mtu, bufferSize: bufferSize, deviceReassembles: reassembles)
        let start = ImageUploadChunk.Start(
            length: UInt32(image.count), sha256: sha ? try Fixtures.sha256(image) : nil)
        let firstCount = ImageUploadChunk.maximumDataCount(frameLimit: limit, offset: 0, start: start)
        var answer = try ImageUploadResponse(
            try await send(.imageUpload(ImageUploadChunk(first: Array(image[..<firstCount]), start: start))))
        while Int(answer.offset) < min(image.count, stopAfter ?? image.count) {
            let offset = Int(answer.offset)
            let count = min(
                ImageUploadChunk.maximumDataCount(frameLimit: limit, offset: answer.offset, start: nil),
                image.count - offset)
            let chunk = ImageUploadChunk(offset: answer.offset, data: Array(image[offset..<offset + count]))
            answer = try ImageUploadResponse(try await send(.imageUpload(chunk)))
        }
        return answer
    }
}

extension SMPTestClient {
    /// Resets the device through the OS group; a client of the device once it is back.
    func resetAndReconnect() async throws -> SMPTestClient {
        let answer = try await send(.reset(force: false))
        XCTAssertNil(answer.deviceError)
        try await peripheral.waitForDisconnection(timeout: Self.timeout)
        return try await SMPTestClient(central: central)
    }

    /// Sends `request` and checks that the device refuses it with image group error `code`.
    func expectImageError(
        _ request: SMPRequest, _ code: ImageManagementReturnCode, file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let answer = try await send(request)
        XCTAssertEqual(answer.deviceError, .group(.image, rc: code.rawValue), file: file, line: line)
    }
}

enum SMPTestClientError: Error {
    case noAnswer
    case streamEnded
}

/// The subscription's iterator. Only one read runs at a time (the tests await each), which is
/// what makes the unchecked `Sendable` sound.
private final class NotificationBox: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator

    init(_ iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> [UInt8]? { try await iterator.next() }
}
