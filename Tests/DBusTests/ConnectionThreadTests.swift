import Foundation
import Synchronization
import TestSupport
import XCTest

@testable import DBus

/// The connection's thread as a task executor, and the descriptors it polls for others.
final class ConnectionThreadTests: TwoConnectionTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try server.exportObject(
            at: "/test",
            interfaces: [
                DBusInterface(
                    "org.example.Test",
                    methods: [DBusMethod.immediate("Echo", in: "i", out: "i") { $0.arguments }])
            ])
    }

    func testATaskPreferringTheConnectionRunsOnItsThreadBeforeAndAfterEachReply() async throws {
        let client = try XCTUnwrap(self.client)
        let destination = server.uniqueName
        let onLoopThread = try await Task(executorPreference: client.taskExecutor) {
            var seen: [Bool] = [client.loop.isLoopThread]
            for value in Int32(1)...20 {
                let reply = try await client.call(
                    destination: destination, path: "/test", interface: "org.example.Test", member: "Echo",
                    arguments: [.int32(value)], timeout: .seconds(5))
                XCTAssertEqual(reply, [.int32(value)])
                seen.append(client.loop.isLoopThread)
            }
            return seen
        }.value
        XCTAssertEqual(onLoopThread, Array(repeating: true, count: 21))
    }

    func testAWatchedDescriptorIsReportedReadableUntilItHangsUp() async throws {
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        let (ours, theirs) = (pair[0], pair[1])
        defer { close(ours) }
        let reports = AsyncStream<String>.makeStream()
        let watch = client.watchReadable(ours) { hungUp in
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = recv(ours, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            reports.continuation.yield(hungUp ? "hung up" : "read \(buffer.prefix(max(count, 0)))")
            return true
        }
        var iterator = reports.stream.makeAsyncIterator()
        XCTAssertEqual(send(theirs, [UInt8]([7, 8]), 2, 0), 2)
        let first = await iterator.next()
        XCTAssertEqual(first, "read [7, 8]")
        close(theirs)
        let second = await iterator.next()
        XCTAssertEqual(second, "hung up")
        watch.cancel()
    }

    func testACancelledWatchIsNotReportedAgain() async throws {
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        defer { pair.forEach { close($0) } }
        let calls = Atomic(0)
        let watch = client.watchReadable(pair[0]) { _ in
            calls.add(1, ordering: .relaxed)
            return true
        }
        watch.cancel()
        // a job queued after the cancellation runs after it: the data comes after the watch ended
        try await client.loop.perform { _ in }
        XCTAssertEqual(send(pair[1], [UInt8]([1]), 1, 0), 1)
        // one more round of the loop, which would have reported the descriptor
        _ = try await client.call(
            destination: server.uniqueName, path: "/test", interface: "org.example.Test", member: "Echo",
            arguments: [.int32(1)], timeout: .seconds(5))
        XCTAssertEqual(calls.load(ordering: .relaxed), 0)
    }
}
