import DBus
import TestSupport
import XCTest

final class FailureTests: XCTestCase {
    private var bus: TestBus!
    private var server: DBusConnection!
    private var client: DBusConnection!
    private let gate = Gate()
    private let started = Inbox<Void>()

    override func setUp() async throws {
        bus = try TestBus()
        server = try await bus.connect()
        client = try await bus.connect()
        let gate = self.gate
        let started = self.started
        try server.exportObject(
            at: "/slow",
            interfaces: [
                DBusInterface(
                    "org.example.Slow",
                    methods: [
                        DBusMethod("Never") { _ in
                            started.put(())
                            await gate.wait()
                            return []
                        }
                    ])
            ])
    }

    override func tearDown() async throws {
        gate.open()
        server?.close()
        client?.close()
        bus?.kill()
        // XCTest keeps every test case object until the run ends; let go of ours now.
        (server, client, bus) = (nil, nil, nil)
    }

    private func startNeverAnsweredCall() -> Task<[DBusValue], any Error> {
        let client = self.client!
        let server = self.server.uniqueName
        return Task {
            try await client.call(
                destination: server, path: "/slow", interface: "org.example.Slow", member: "Never",
                timeout: .seconds(20))
        }
    }

    private func failure(of call: Task<[DBusValue], any Error>) async throws -> DBusError? {
        try await withTimeout(10) {
            await withTaskCancellationHandler {
                if case .failure(let error) = await call.result { return error as? DBusError }
                return nil
            } onCancel: {
                call.cancel()
            }
        }
    }

    func testPeerVanishingMidCallFailsPromptly() async throws {
        let call = startNeverAnsweredCall()
        let handlerStarted: Void? = await started.next(within: 5)
        XCTAssertNotNil(handlerStarted)
        let start = ContinuousClock.now
        server.close()
        let error = try await failure(of: call)
        // The bus answers for the peer that left: NoReply, long before the 20 s timeout.
        XCTAssertEqual(error?.name, DBusError.Name.noReply)
        if case .timedOut? = error { XCTFail("the bus's answer must not look like our own timeout") }
        XCTAssertLessThan(seconds(since: start), 3)
    }

    func testPeerProcessKilledMidCallFailsPromptly() async throws {
        let name = "org.example.Doomed"
        let owners = try await client.signals(
            matching: DBusMatchRule(
                sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                arguments: [0: name]))
        let peer = try VanishingPeer(busAddress: bus.address, name: name)
        defer { peer.kill() }
        let acquired = try await withTimeoutOrNil(5) { await owners.first { _ in true } }
        XCTAssertNotNil(acquired ?? nil, "the peer process did not take its name")

        let client = self.client!
        let call = Task {
            try await client.call(
                destination: name, path: "/", interface: "org.example.Doomed", member: "Vanish",
                timeout: .seconds(20))
        }
        let reached = await peer.waitFor("called", within: 5)
        XCTAssertTrue(reached, "the call did not reach the peer process")
        let start = ContinuousClock.now
        peer.kill()
        let error = try await failure(of: call)
        XCTAssertEqual(error?.name, DBusError.Name.noReply)
        XCTAssertLessThan(seconds(since: start), 3)
    }

    func testBusDaemonDyingFailsCallsAndReportsTheLoss() async throws {
        let lost = Inbox<Void>()
        let watcher = Task { [client] in
            await client!.waitUntilDisconnected()
            lost.put(())
        }
        defer { watcher.cancel() }
        let signals = try await client.signals(matching: DBusMatchRule(interface: "org.example.Never"))
        let signalsEnded = Task {
            for await _ in signals {}
            return true
        }
        let call = startNeverAnsweredCall()
        let handlerStarted: Void? = await started.next(within: 5)
        XCTAssertNotNil(handlerStarted)

        let start = ContinuousClock.now
        bus.kill()
        let error = try await failure(of: call)
        XCTAssertEqual(error?.name, DBusError.Name.disconnected)
        XCTAssertLessThan(seconds(since: start), 3)
        let lossReported: Void? = await lost.next(within: 5)
        XCTAssertNotNil(lossReported)
        XCTAssertFalse(client.isConnected)
        let ended = try await withTimeout(5) { await signalsEnded.value }
        XCTAssertTrue(ended)

        let later = await expectDBusError {
            try await client.call(
                destination: "org.freedesktop.DBus", path: "/", interface: nil, member: "Ping")
        }
        XCTAssertEqual(later?.name, DBusError.Name.disconnected)
        let subscribe = await expectDBusError { try await client.signals(matching: DBusMatchRule()) }
        XCTAssertEqual(subscribe?.name, DBusError.Name.disconnected)
    }

    func testClosingFailsPendingCalls() async throws {
        let call = startNeverAnsweredCall()
        let handlerStarted: Void? = await started.next(within: 5)
        XCTAssertNotNil(handlerStarted)
        client.close()
        let error = try await failure(of: call)
        XCTAssertEqual(error?.name, DBusError.Name.disconnected)
    }
}
