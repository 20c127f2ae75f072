import DBus
import Foundation
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

    /// Whether `connection` can reach an object exported by a connection on `bus`.
    private func reaches(_ connection: DBusConnection, objectOn bus: TestBus) async throws -> Bool {
        let server = try await bus.connect()
        defer { server.close() }
        try server.exportObject(at: "/echo", interfaces: [echoInterface])
        do {
            return try await connection.echo(.variant(.string("hi")), on: server.uniqueName)
                == .variant(.string("hi"))
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

        let firstReachesFirst = try await reaches(onFirst, objectOn: first)
        let firstReachesSecond = try await reaches(onFirst, objectOn: second)
        let secondReachesSecond = try await reaches(onSecond, objectOn: second)
        XCTAssertTrue(firstReachesFirst)
        XCTAssertFalse(firstReachesSecond)
        XCTAssertTrue(secondReachesSecond)
    }

    func testSessionBusFollowsTheEnvironment() async throws {
        setenv("DBUS_SESSION_BUS_ADDRESS", second.address, 1)
        let connection = try await DBusConnection.connect(to: .session)
        defer { connection.close() }
        let reachesSecond = try await reaches(connection, objectOn: second)
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
