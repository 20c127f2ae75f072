import DBus
import TestSupport
import XCTest

/// Methods whose handler runs as the call is dispatched (`DBusMethod.immediate`).
final class ImmediateMethodTests: TwoConnectionTestCase {
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
                        DBusMethod.immediate("Now", in: "i", out: "i") { call in
                            guard case .int32(let value) = call.arguments[0] else { return [] }
                            if value < 0 {
                                throw DBusError.error(
                                    name: "org.example.Error.Negative", message: "\(value)")
                            }
                            arrivals.put(value)
                            return value == 99 ? [.string("not an int")] : [.int32(value * 2)]
                        }
                    ])
            ])
    }

    private func start(_ value: Int32) throws -> DBusPendingCall {
        try client.startCall(
            destination: server.uniqueName, path: "/test", interface: "org.example.Test", member: "Now",
            arguments: [.int32(value)], timeout: .seconds(10))
    }

    func testCallsAreHandledInArrivalOrderAndAnswered() async throws {
        let calls = try (0..<32).map { try start(Int32($0)) }
        for expected in Int32(0)..<32 {
            let arrived = await arrivals.next(within: 10)
            XCTAssertEqual(arrived, expected)
        }
        for (index, call) in calls.enumerated() {
            let reply = try await call.reply()
            XCTAssertEqual(reply, [.int32(Int32(index) * 2)])
        }
    }

    func testAThrownErrorAndAWrongReplySignatureBecomeErrorReplies() async throws {
        let thrown = await expectDBusError { try await self.start(-3).reply() }
        XCTAssertEqual(thrown, .error(name: "org.example.Error.Negative", message: "-3"))
        let mistyped = await expectDBusError { try await self.start(99).reply() }
        guard case .error(let name, let message) = mistyped else {
            return XCTFail("expected an error reply, got \(String(describing: mistyped))")
        }
        XCTAssertEqual(name, "org.freedesktop.DBus.Error.Failed")
        XCTAssertTrue(message.contains("declared 'i'"), message)
    }
}
