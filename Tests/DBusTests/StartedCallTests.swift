import DBus
import TestSupport
import XCTest

/// `startCall`: calls sent at once, in order, whose replies are collected later.
final class StartedCallTests: TwoConnectionTestCase {
    private let arrivals = Inbox<Int32>()

    override func setUp() async throws {
        try await super.setUp()
        let arrivals = self.arrivals
        try server.exportObject(
            at: "/test",
            interfaces: [
                DBusInterface(
                    "org.example.Test",
                    methods: [
                        DBusMethod("Take", in: "i", out: "i", inOrder: true) { call in
                            guard case .int32(let value) = call.arguments[0] else { return [] }
                            if value < 0 {
                                throw DBusError.error(name: "org.example.Error.Negative", message: "\(value)")
                            }
                            arrivals.put(value)
                            return [.int32(value * 2)]
                        }
                    ])
            ])
    }

    private func start(_ value: Int32) throws -> DBusPendingCall {
        try client.startCall(
            destination: server.uniqueName, path: "/test", interface: "org.example.Test", member: "Take",
            arguments: [.int32(value)], timeout: .seconds(10))
    }

    func testCallsLeaveInOrderAndRepliesWaitUntilCollected() async throws {
        let calls = try (0..<32).map { try start(Int32($0)) }
        // every call reached the server, in the order started, before any reply was awaited
        for expected in Int32(0)..<32 {
            let arrived = await arrivals.next(within: 10)
            XCTAssertEqual(arrived, expected)
        }
        // replies kept until asked for, in any order
        for (index, call) in calls.enumerated().reversed() {
            let reply = try await call.reply()
            XCTAssertEqual(reply, [.int32(Int32(index) * 2)])
        }
    }

    func testAnErrorReplyIsThrownWhenCollected() async throws {
        let failing = try start(-1)
        let passing = try start(5)
        let passed = try await passing.reply()
        XCTAssertEqual(passed, [.int32(10)])
        let error = await expectDBusError { try await failing.reply() }
        XCTAssertEqual(error, .error(name: "org.example.Error.Negative", message: "-1"))
    }

    func testACallOnAClosedConnectionFailsWhenCollected() async throws {
        client.close()
        let call = try start(1)
        let error = await expectDBusError { try await call.reply() }
        guard case .disconnected = error else {
            return XCTFail("expected disconnected, got \(String(describing: error))")
        }
    }
}
