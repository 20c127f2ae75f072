import DBus
import Foundation
import TestSupport
import XCTest

/// `.system` and `.session` follow their address variables at every connect (libdbus alone
/// would cache the first value it saw), so each test can point them at its own daemon.
final class BusAddressTests: XCTestCase {
    private var first: TestBus!
    private var second: TestBus!
    private var saved: [String: String?] = [:]

    override func setUp() async throws {
        first = try TestBus()
        second = try TestBus()
        for name in ["DBUS_SYSTEM_BUS_ADDRESS", "DBUS_SESSION_BUS_ADDRESS"] {
            saved[name] = ProcessInfo.processInfo.environment[name]
        }
    }

    override func tearDown() async throws {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        first?.kill()
        second?.kill()
        (first, second) = (nil, nil)
    }

    /// Whether `connection` can reach an object exported on `bus` under the well-known `name`
    /// (unique names like `:1.1` exist on every bus, so they cannot tell buses apart). Each probe
    /// uses a fresh name: a closed probe's name may stay owned for a moment.
    private func reaches(_ connection: DBusConnection, objectOn bus: TestBus, as name: String) async throws
        -> Bool
    {
        let server = try await bus.connect()
        defer { server.close() }
        try server.exportObject(at: "/echo", interfaces: [echoInterface])
        let owned = try await server.requestName(name)
        XCTAssertEqual(owned, .primaryOwner, "each probe needs a name of its own")
        do {
            return try await connection.echo(.variant(.string("hi")), on: name) == .variant(.string("hi"))
        } catch let error as DBusError where error.name == DBusError.Name.serviceUnknown {
            return false
        }
    }

    func testSystemBusFollowsTheEnvironment() async throws {
        setenv("DBUS_SYSTEM_BUS_ADDRESS", first.address, 1)
        let onFirst = try await DBusConnection.connect(to: .system)
        defer { onFirst.close() }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", second.address, 1)
        let onSecond = try await DBusConnection.connect(to: .system)
        defer { onSecond.close() }

        let firstReachesFirst = try await reaches(onFirst, objectOn: first, as: "org.example.OnFirst")
        let firstReachesSecond = try await reaches(onFirst, objectOn: second, as: "org.example.OnSecond")
        let secondReachesSecond = try await reaches(
            onSecond, objectOn: second, as: "org.example.OnSecondAgain")
        XCTAssertTrue(firstReachesFirst)
        XCTAssertFalse(firstReachesSecond)
        XCTAssertTrue(secondReachesSecond)
    }

    func testSessionBusFollowsTheEnvironment() async throws {
        setenv("DBUS_SESSION_BUS_ADDRESS", second.address, 1)
        let connection = try await DBusConnection.connect(to: .session)
        defer { connection.close() }
        let reachesSecond = try await reaches(
            connection, objectOn: second, as: "org.example.OnSecondBySession")
        XCTAssertTrue(reachesSecond)
    }

    func testUnreachableSystemBusNamesTheAddress() async throws {
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/system_bus_socket", 1)
        let error = await expectDBusError { try await DBusConnection.connect(to: .system) }
        guard case .connectionFailed(_, let message)? = error else {
            return XCTFail("expected connectionFailed, got \(String(describing: error))")
        }
        XCTAssertTrue(message.contains("/nonexistent/system_bus_socket"), message)
    }
}
