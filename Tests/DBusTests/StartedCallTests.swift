import DBus
import TestSupport
import XCTest

/// `startCall`: calls sent at once, in order, whose replies are collected later; and methods
/// handled in arrival order, on a queue (`inOrder`) or as the call is dispatched (`immediate`).
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
                        DBusMethod("Take", in: "i", out: "i", inOrder: true) { try Self.take($0, arrivals) },
                        // handled as the call is dispatched (`DBusMethod.immediate`)
                        DBusMethod.immediate("TakeNow", in: "i", out: "i") { try Self.take($0, arrivals) },
                    ])
            ])
    }

    /// Notes the value and answers twice it; a negative value is refused with an error, and 99
    /// gets a reply of another type than declared.
    private static func take(_ call: DBusMethodCall, _ arrivals: Inbox<Int32>) throws -> [DBusValue] {
        guard case .int32(let value) = call.arguments[0] else { return [] }
        if value < 0 {
            throw DBusError.error(name: "org.example.Error.Negative", message: "\(value)")
        }
        arrivals.put(value)
        return value == 99 ? [.string("not an int")] : [.int32(value * 2)]
    }

    private func start(_ value: Int32, member: String = "Take") throws -> DBusPendingCall {
        try client.startCall(
            destination: server.uniqueName, path: "/test", interface: "org.example.Test", member: member,
            arguments: [.int32(value)], timeout: .seconds(10))
    }

    func testCallsLeaveInOrderAndRepliesWaitUntilCollected() async throws {
        try await assertCallsArriveInOrderAndAreAnswered(member: "Take")
    }

    func testImmediateMethodsAreHandledInArrivalOrderAndAnswered() async throws {
        try await assertCallsArriveInOrderAndAreAnswered(member: "TakeNow")
    }

    func testAnImmediateMethodsErrorsBecomeErrorReplies() async throws {
        let thrown = await expectDBusError { try await self.start(-3, member: "TakeNow").reply() }
        XCTAssertEqual(thrown, .error(name: "org.example.Error.Negative", message: "-3"))
        let mistyped = await expectDBusError { try await self.start(99, member: "TakeNow").reply() }
        guard case .error(let name, let message) = mistyped else {
            return XCTFail("expected an error reply, got \(String(describing: mistyped))")
        }
        XCTAssertEqual(name, "org.freedesktop.DBus.Error.Failed")
        XCTAssertTrue(message.contains("declared 'i'"), message)
    }

    private func assertCallsArriveInOrderAndAreAnswered(member: String) async throws {
        let calls = try (0..<32).map { try start(Int32($0), member: member) }
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
