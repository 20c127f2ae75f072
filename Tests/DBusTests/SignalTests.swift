import DBus
import TestSupport
import XCTest

final class SignalTests: XCTestCase {
    private var bus: TestBus!
    private var emitter: DBusConnection!
    private var listener: DBusConnection!

    override func setUp() async throws {
        bus = try TestBus()
        emitter = try await bus.connect()
        listener = try await bus.connect()
    }

    override func tearDown() async throws {
        emitter?.close()
        listener?.close()
        bus?.kill()
        (emitter, listener, bus) = (nil, nil, nil)
    }

    private func emit(
        _ member: String, _ arguments: [DBusValue], from connection: DBusConnection? = nil,
        path: String = "/dev"
    )
        throws
    {
        try (connection ?? emitter).emitSignal(
            path: path, interface: "org.example.Signals", member: member, arguments: arguments)
    }

    func testSignalsArriveThroughMatchRules() async throws {
        let stream = try await listener.signals(
            matching: DBusMatchRule(interface: "org.example.Signals", member: "Tick"))
        let inbox = Inbox<DBusSignal>()
        let pump = inbox.pump(stream)
        defer { pump.cancel() }
        try emit("Other", [.int32(0)])
        try emit("Tick", [.int32(1), .string("one")])
        try emit("Tick", [.int32(2), .string("two")])
        let first = await inbox.next(within: 5)
        XCTAssertEqual(first?.member, "Tick")
        XCTAssertEqual(first?.arguments, [.int32(1), .string("one")])
        XCTAssertEqual(first?.sender, emitter.uniqueName)
        XCTAssertEqual(first?.path, "/dev")
        XCTAssertEqual(first?.interface, "org.example.Signals")
        let second = await inbox.next(within: 5)
        XCTAssertEqual(second?.arguments.first, .int32(2))
    }

    func testArgumentAndPathFilters() async throws {
        let byArgument = try await listener.signals(
            matching: DBusMatchRule(
                interface: "org.example.Signals", member: "Changed", arguments: [0: "wanted"]))
        let byNamespace = try await listener.signals(
            matching: DBusMatchRule(
                interface: "org.example.Signals", member: "Changed", pathNamespace: "/org/a"))
        try emit("Changed", [.string("unwanted"), .int32(1)], path: "/org/b")
        try emit("Changed", [.string("wanted"), .int32(2)], path: "/org/b")
        try emit("Changed", [.string("other"), .int32(3)], path: "/org/ab")
        try emit("Changed", [.string("other"), .int32(4)], path: "/org/a/x")
        let argumentSignal = try await withTimeout(5) { await byArgument.first { _ in true } }
        XCTAssertEqual(argumentSignal?.arguments, [.string("wanted"), .int32(2)])
        let namespaceSignal = try await withTimeout(5) { await byNamespace.first { _ in true } }
        XCTAssertEqual(namespaceSignal?.arguments, [.string("other"), .int32(4)])
        XCTAssertEqual(namespaceSignal?.path, "/org/a/x")
    }

    func testWellKnownSenderMatchesOnlyItsOwner() async throws {
        let impostor = try await bus.connect()
        defer { impostor.close() }
        try await emitter.requestName("org.example.Emitter")
        let stream = try await listener.signals(
            matching: DBusMatchRule(sender: "org.example.Emitter", interface: "org.example.Signals"))
        let inbox = Inbox<DBusSignal>()
        let pump = inbox.pump(stream)
        defer { pump.cancel() }
        try emit("Tick", [.string("from impostor")], from: impostor)
        // A round trip through the bus after the impostor's signal puts it ahead of the owner's.
        _ = try await impostor.nameOwner("org.example.Emitter")
        try emit("Tick", [.string("from owner")])
        let first = await inbox.next(within: 5)
        XCTAssertEqual(first?.arguments, [.string("from owner")])

        // A new owner takes over: its signals match, the old owner's no longer do.
        try await emitter.releaseName("org.example.Emitter")
        try await impostor.requestName("org.example.Emitter")
        // Once this answer is in, the NameOwnerChanged sent before it has reached the listener.
        _ = try await listener.nameOwner("org.example.Emitter")
        try emit("Tick", [.string("old owner")])
        _ = try await emitter.nameOwner("org.example.Emitter")
        try emit("Tick", [.string("new owner")], from: impostor)
        let next = await inbox.next(within: 5)
        XCTAssertEqual(next?.arguments, [.string("new owner")])
        XCTAssertEqual(next?.sender, impostor.uniqueName)
    }

    func testStoppingTheConsumerRemovesTheMatchRule() async throws {
        let rule = DBusMatchRule(interface: "org.example.Signals", member: "Gone")
        let received = Inbox<DBusSignal>()
        let stream = try await listener.signals(matching: rule)
        let consumer = Task {
            for await signal in stream { received.put(signal) }
        }
        try emit("Gone", [.int32(1)])
        let delivered = await received.next(within: 5)
        XCTAssertEqual(delivered?.arguments, [.int32(1)])

        consumer.cancel()
        _ = await consumer.value
        // The RemoveMatch is queued when the stream terminates; once it has been processed the
        // bus no longer knows the rule, so removing it again fails.
        var lastError: DBusError?
        for _ in 0..<50 {
            lastError = await expectDBusErrorQuietly {
                try await self.listener.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "RemoveMatch",
                    arguments: [.string(rule.ruleString)])
            }
            if lastError != nil { break }
            // The removal above succeeded, so the rule was still there: put it back and retry.
            _ = try await listener.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus", member: "AddMatch", arguments: [.string(rule.ruleString)])
        }
        XCTAssertEqual(lastError?.name, "org.freedesktop.DBus.Error.MatchRuleNotFound")
        try emit("Gone", [.int32(2)])
        let late = await received.next(within: 0.3)
        XCTAssertNil(late)
    }

    func testUnicastSignal() async throws {
        let other = try await bus.connect()
        defer { other.close() }
        let rule = DBusMatchRule(interface: "org.example.Signals", member: "Direct")
        let mine = try await listener.signals(matching: rule)
        let theirs = try await other.signals(matching: rule)
        try emitter.emitSignal(
            path: "/dev", interface: "org.example.Signals", member: "Direct",
            arguments: [.string("for other")],
            destination: other.uniqueName)
        try emitter.emitSignal(
            path: "/dev", interface: "org.example.Signals", member: "Direct",
            arguments: [.string("for listener")],
            destination: listener.uniqueName)
        let received = try await withTimeout(5) { await mine.first { _ in true } }
        XCTAssertEqual(received?.arguments, [.string("for listener")])
        let otherReceived = try await withTimeout(5) { await theirs.first { _ in true } }
        XCTAssertEqual(otherReceived?.arguments, [.string("for other")])
    }

    func testRuleStringQuoting() {
        let rule = DBusMatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            pathNamespace: "/org/bluez/hci0", arguments: [0: "it's"])
        XCTAssertEqual(
            rule.ruleString,
            "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path_namespace='/org/bluez/hci0',arg0='it'\\''s'")
    }

    func testInvalidRuleIsRejected() async throws {
        let error = await expectDBusError {
            try await listener.signals(matching: DBusMatchRule(path: "/a", pathNamespace: "/b"))
        }
        XCTAssertEqual(error?.name, DBusError.Name.invalidArgs)
    }
}

/// The `DBusError` that `body` throws, or nil when it succeeds.
func expectDBusErrorQuietly<T>(_ body: () async throws -> T) async -> DBusError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? DBusError
    }
}
