import DBus
import TestSupport
import XCTest

/// A connection's own life: closing it ends it, and connecting to no bus fails.
final class ConnectionLifecycleTests: XCTestCase {
    private var bus: TestBus!

    override func setUp() async throws {
        bus = try TestBus()
    }

    override func tearDown() async throws {
        bus?.kill()
        bus = nil
    }

    func testClosingEndsTheConnection() async throws {
        let connection = try await bus.connect()
        XCTAssertTrue(connection.isConnected)
        connection.close()
        let ended: Void? = try await withTimeoutOrNil(5) { await connection.waitUntilDisconnected() }
        XCTAssertNotNil(ended)
        XCTAssertFalse(connection.isConnected)
        let error = await expectDBusError {
            try await connection.call(
                destination: "org.freedesktop.DBus", path: "/", interface: nil, member: "Ping")
        }
        XCTAssertEqual(error?.name, DBusError.Name.disconnected)
    }

    func testConnectingToNothingFails() async throws {
        let error = await expectDBusError {
            try await DBusConnection.connect(to: .address("unix:path=/nonexistent/dbus-test-socket"))
        }
        guard case .connectionFailed? = error else {
            return XCTFail("expected connectionFailed, got \(String(describing: error))")
        }
    }
}
