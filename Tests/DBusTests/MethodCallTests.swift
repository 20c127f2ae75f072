import DBus
import TestSupport
import XCTest

final class MethodCallTests: TwoConnectionTestCase {
    private let gate = Gate()
    /// One element each time the server starts handling `Never`.
    private let neverCalled = Inbox<Void>()

    override func setUp() async throws {
        try await super.setUp()
        let gate = self.gate
        let neverCalled = self.neverCalled
        try server.exportObject(
            at: "/test",
            interfaces: [
                DBusInterface(
                    "org.example.Test",
                    methods: [
                        DBusMethod("Echo", in: "s", out: "s") { call in
                            [.string("echo: " + (call.arguments[0].stringValue ?? ""))]
                        },
                        DBusMethod("Fail", in: "ss") { call in
                            throw DBusError.error(
                                name: call.arguments[0].stringValue ?? "",
                                message: call.arguments[1].stringValue ?? "")
                        },
                        DBusMethod("Crash") { _ in throw CocoaLikeError() },
                        DBusMethod("WrongReply", out: "s") { _ in [.int32(1)] },
                        DBusMethod("Never") { _ in
                            neverCalled.put(())
                            await gate.wait()
                            return []
                        },
                        DBusMethod("Add", in: "ii", out: "i") { call in
                            guard case .int32(let a) = call.arguments[0],
                                case .int32(let b) = call.arguments[1]
                            else {
                                return []
                            }
                            return [.int32(a &+ b)]
                        },
                    ])
            ])
    }

    override func tearDown() async throws {
        gate.open()
        try await super.tearDown()
    }

    private func callTest(
        _ member: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(10),
        path: String = "/test",
        interface: String? = "org.example.Test"
    ) async throws -> [DBusValue] {
        try await client.call(
            destination: server.uniqueName, path: path, interface: interface, member: member,
            arguments: arguments,
            timeout: timeout)
    }

    func testCallBetweenTwoConnections() async throws {
        XCTAssertTrue(server.uniqueName.hasPrefix(":"))
        XCTAssertNotEqual(server.uniqueName, client.uniqueName)
        let reply = try await callTest("Echo", [.string("hello")])
        XCTAssertEqual(reply, [.string("echo: hello")])
        // Without an interface the method is looked up on every interface of the object.
        let untyped = try await callTest("Echo", [.string("again")], interface: nil)
        XCTAssertEqual(untyped, [.string("echo: again")])
    }

    func testErrorReplyKeepsNameAndMessage() async throws {
        let error = await expectDBusError {
            try await callTest(
                "Fail", [.string("org.example.Error.Broken"), .string("it broke: le-connection")])
        }
        XCTAssertEqual(error, .error(name: "org.example.Error.Broken", message: "it broke: le-connection"))
        XCTAssertEqual(error?.name, "org.example.Error.Broken")
        XCTAssertEqual(error?.message, "it broke: le-connection")
    }

    func testHandlerErrorsAndBadCallsBecomeStandardErrors() async throws {
        let crash = await expectDBusError { try await callTest("Crash") }
        XCTAssertEqual(crash?.name, DBusError.Name.failed)
        let invalidName = await expectDBusError {
            try await callTest("Fail", [.string("no dots"), .string("x")])
        }
        XCTAssertEqual(invalidName?.name, DBusError.Name.failed)
        let wrongReply = await expectDBusError { try await callTest("WrongReply") }
        XCTAssertEqual(wrongReply?.name, DBusError.Name.failed)
        let wrongArguments = await expectDBusError { try await callTest("Echo", [.int32(3)]) }
        XCTAssertEqual(wrongArguments?.name, DBusError.Name.invalidArgs)
        let unknownMethod = await expectDBusError { try await callTest("Nope") }
        XCTAssertEqual(unknownMethod?.name, DBusError.Name.unknownMethod)
        let unknownInterface = await expectDBusError {
            try await callTest("Echo", interface: "org.example.Other")
        }
        XCTAssertEqual(unknownInterface?.name, DBusError.Name.unknownInterface)
        let unknownObject = await expectDBusError {
            try await callTest("Echo", [.string("x")], path: "/nothing")
        }
        XCTAssertEqual(unknownObject?.name, DBusError.Name.unknownObject)
        let ping = try await callTest("Ping", path: "/nothing", interface: "org.freedesktop.DBus.Peer")
        XCTAssertEqual(ping, [])
    }

    func testInvalidArgumentsAreRejectedLocally() async throws {
        let badPath = await expectDBusError { try await callTest("Echo", [.string("x")], path: "no/slash") }
        XCTAssertEqual(badPath, .invalidArguments("'no/slash' is not a valid D-Bus object path"))
        let badMember = await expectDBusError { try await callTest("Bad-Member") }
        XCTAssertEqual(badMember?.name, DBusError.Name.invalidArgs)
        let nul = await expectDBusError { try await callTest("Echo", [.string("a\0b")]) }
        XCTAssertEqual(nul?.name, DBusError.Name.invalidArgs)
        let mixed = await expectDBusError {
            try await callTest("Echo", [.array(elementSignature: "s", [.string("a"), .int32(1)])])
        }
        XCTAssertEqual(mixed?.name, DBusError.Name.invalidArgs)
        // The connection is still fine afterwards.
        let reply = try await callTest("Echo", [.string("ok")])
        XCTAssertEqual(reply, [.string("echo: ok")])
    }

    func testCallWithoutReplyTimesOutWithinItsTimeout() async throws {
        let start = ContinuousClock.now
        let error = await expectDBusError { try await callTest("Never", timeout: .milliseconds(300)) }
        let elapsed = seconds(since: start)
        XCTAssertEqual(error, .timedOut(milliseconds: 300))
        XCTAssertEqual(error?.name, DBusError.Name.noReply)
        XCTAssertGreaterThanOrEqual(elapsed, 0.29)
        XCTAssertLessThan(elapsed, 3)
    }

    func testCallToMissingNameFailsFast() async throws {
        let start = ContinuousClock.now
        let error = await expectDBusError {
            try await client.call(
                destination: "org.example.Nobody", path: "/", interface: "org.example.X", member: "Y",
                timeout: .seconds(25))
        }
        XCTAssertEqual(error?.name, DBusError.Name.serviceUnknown)
        XCTAssertLessThan(seconds(since: start), 2)
    }

    func testCancellingTheCallerCancelsTheCall() async throws {
        let client = self.client!
        let server = self.server!.uniqueName
        let task = Task {
            try await client.call(
                destination: server, path: "/test", interface: "org.example.Test", member: "Never",
                timeout: .seconds(20))
        }
        // cancelled once the server handles it: the call is on the bus, not still being sent
        let handled: Void? = await neverCalled.next(within: 5)
        XCTAssertNotNil(handled, "the server never got the call")
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("the cancelled call returned")
        } catch {
            XCTAssertTrue(error is CancellationError, "got \(error)")
        }
        XCTAssertLessThan(seconds(since: start), 2)
        let reply = try await callTest("Echo", [.string("still here")])
        XCTAssertEqual(reply, [.string("echo: still here")])
    }

    func testFireAndForgetSend() async throws {
        let inbox = Inbox<String>()
        try server.exportObject(
            at: "/sink",
            interfaces: [
                DBusInterface(
                    "org.example.Sink",
                    methods: [
                        DBusMethod("Put", in: "s", inOrder: true) { call in
                            inbox.put(call.arguments[0].stringValue ?? "")
                            return []
                        }
                    ])
            ])
        try client.send(
            destination: server.uniqueName, path: "/sink", interface: "org.example.Sink", member: "Put",
            arguments: [.string("one")])
        try client.send(
            destination: server.uniqueName, path: "/sink", interface: "org.example.Sink", member: "Put",
            arguments: [.string("two")])
        let first = await inbox.next(within: 5)
        let second = await inbox.next(within: 5)
        XCTAssertEqual(first, "one")
        XCTAssertEqual(second, "two")
    }

    func testManyConcurrentCallsFromManyTasks() async throws {
        let client = self.client!
        let server = self.server!.uniqueName
        let sums = try await withTimeout(60) {
            try await withThrowingTaskGroup(of: Int32.self) { group in
                for task in 0..<64 {
                    group.addTask {
                        var total: Int32 = 0
                        for index in 0..<25 {
                            let reply = try await client.call(
                                destination: server, path: "/test", interface: "org.example.Test",
                                member: "Add",
                                arguments: [.int32(Int32(task)), .int32(Int32(index))], timeout: .seconds(20))
                            guard case .int32(let sum)? = reply.first, sum == Int32(task + index) else {
                                XCTFail("wrong sum \(reply) for \(task)+\(index)")
                                return -1
                            }
                            total += sum
                        }
                        return total
                    }
                }
                return try await group.reduce(into: [Int32]()) { $0.append($1) }
            }
        }
        XCTAssertEqual(sums.count, 64)
        // Σ over tasks t of Σ_{i<25} (t + i) = 25·Σt + 64·Σi
        let taskSum: Int32 = 63 * 64 / 2
        let indexSum: Int32 = 24 * 25 / 2
        XCTAssertEqual(sums.reduce(0, +), 25 * taskSum + 64 * indexSum)
    }
}

private struct CocoaLikeError: Error {}
