import DBus
import Foundation
import TestSupport
import XCTest

final class FileDescriptorTests: TwoConnectionTestCase {
    /// Read ends of pipes whose write ends the server handed out.
    private let readEnds = Inbox<Int32>()

    override func setUp() async throws {
        try await super.setUp()
        let readEnds = self.readEnds
        try server.exportObject(
            at: "/fd",
            interfaces: [
                DBusInterface(
                    "org.example.Files",
                    methods: [
                        // Writes the text through the received descriptor.
                        DBusMethod("WriteTo", in: "hs") { call in
                            guard let fd = call.arguments[0].unixFDValue,
                                let text = call.arguments[1].stringValue
                            else {
                                return []
                            }
                            try writeAll(text, to: fd.fileDescriptor)
                            return []
                        },
                        // Like BlueZ's AcquireWrite: returns a descriptor and an MTU.
                        DBusMethod("Acquire", out: "hq") { _ in
                            let (readEnd, writeEnd) = try makePipe()
                            readEnds.put(readEnd)
                            return [.unixFD(DBusUnixFD(owning: writeEnd)), .uint16(247)]
                        },
                    ])
            ])
    }

    func testSendingADescriptor() async throws {
        XCTAssertTrue(client.canPassFileDescriptors)
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd) }
        _ = try await client.call(
            destination: server.uniqueName, path: "/fd", interface: "org.example.Files", member: "WriteTo",
            arguments: [.unixFD(DBusUnixFD(borrowing: writeEnd)), .string("written by the server")],
            timeout: .seconds(5))
        close(writeEnd)
        // The server's copy was closed with its message, ours just now: the pipe reaches EOF.
        XCTAssertEqual(try readToEnd(readEnd), "written by the server")
    }

    func testReceivingADescriptor() async throws {
        try await acquireAndWrite("written by the client")
        guard let readEnd = await readEnds.next(within: 5) else { return XCTFail("the server made no pipe") }
        defer { close(readEnd) }
        // The reply is gone, so the client's copy is closed; the server closed its own after
        // replying. Only then does the pipe reach EOF.
        let text = try await withTimeout(5) { try readToEnd(readEnd) }
        XCTAssertEqual(text, "written by the client")
    }

    /// Calls Acquire and writes through the received descriptor, which is dropped on return.
    private func acquireAndWrite(_ text: String) async throws {
        let reply = try await client.call(
            destination: server.uniqueName, path: "/fd", interface: "org.example.Files", member: "Acquire",
            timeout: .seconds(5))
        XCTAssertEqual(reply.count, 2)
        XCTAssertEqual(reply.last, .uint16(247))
        let received = try XCTUnwrap(reply.first?.unixFDValue)
        XCTAssertGreaterThanOrEqual(received.fileDescriptor, 0)
        XCTAssertEqual(fcntl(received.fileDescriptor, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
        try writeAll(text, to: received.fileDescriptor)
    }

    func testTakingOwnership() throws {
        let (readEnd, writeEnd) = try makePipe()
        defer { close(readEnd) }
        let wrapped = DBusUnixFD(owning: writeEnd)
        let taken = wrapped.take()
        XCTAssertEqual(taken, writeEnd)
        XCTAssertEqual(wrapped.fileDescriptor, -1)
        XCTAssertEqual(wrapped.take(), -1)
        XCTAssertNotEqual(fcntl(taken, F_GETFD), -1, "take() must not close the descriptor")
        close(taken)
        let sendTaken = expectSyncDBusError {
            try client.send(
                destination: server.uniqueName, path: "/fd", interface: "org.example.Files",
                member: "WriteTo",
                arguments: [.unixFD(wrapped), .string("x")])
        }
        XCTAssertEqual(sendTaken?.name, DBusError.Name.invalidArgs)
    }
}

/// Descriptors over a transport that cannot carry them are refused up front, not lost.
final class FileDescriptorOverTCPTests: TwoConnectionTestCase {
    override var busOverTCP: Bool { true }

    override func setUp() async throws {
        try await super.setUp()
        try server.exportObject(
            at: "/fd",
            interfaces: [
                DBusInterface(
                    "org.example.Files",
                    methods: [
                        DBusMethod("Acquire", out: "h") { _ in
                            let (readEnd, writeEnd) = try makePipe()
                            close(readEnd)
                            return [.unixFD(DBusUnixFD(owning: writeEnd))]
                        }
                    ])
            ])
    }

    func testDescriptorsAreRefusedOnTCP() async throws {
        XCTAssertFalse(client.canPassFileDescriptors)
        let (readEnd, writeEnd) = try makePipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let sending = await expectDBusError {
            try await client.call(
                destination: server.uniqueName, path: "/fd", interface: "org.example.Files",
                member: "Acquire",
                arguments: [.unixFD(DBusUnixFD(borrowing: writeEnd))])
        }
        XCTAssertEqual(sending?.name, DBusError.Name.invalidArgs)
        let start = ContinuousClock.now
        let receiving = await expectDBusError {
            try await client.call(
                destination: server.uniqueName, path: "/fd", interface: "org.example.Files",
                member: "Acquire",
                timeout: .seconds(20))
        }
        XCTAssertEqual(receiving?.name, DBusError.Name.failed)
        XCTAssertLessThan(seconds(since: start), 3)
    }
}

func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    return (ends[0], ends[1])
}

func writeAll(_ text: String, to fd: Int32) throws {
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw POSIXError(.EIO) }
}

/// Reads until EOF, waiting at most 5 s for each chunk.
func readToEnd(_ fd: Int32) throws -> String {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 5000) > 0 else { throw POSIXError(.ETIMEDOUT) }
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        data += buffer[..<count]
    }
    return String(decoding: data, as: UTF8.self)
}
