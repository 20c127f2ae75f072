import DBus
import XCTest

final class MethodCallTests: XCTestCase {
    private var bus: TestBus!

    override func setUp() async throws {
        bus = try TestBus()
    }

    override func tearDown() async throws {
        bus.kill()
        bus = nil
    }

    func testCallBetweenTwoConnections() async throws {
        let server = try await bus.connect()
        let client = try await bus.connect()
        XCTAssertTrue(server.uniqueName.hasPrefix(":"))
        XCTAssertNotEqual(server.uniqueName, client.uniqueName)
        try server.exportObject(
            at: "/test/echo",
            interfaces: [
                DBusInterface(
                    "org.example.Echo",
                    methods: [
                        DBusMethod("Echo", in: "s", out: "s") { call in
                            [.string("echo: " + (call.arguments[0].stringValue ?? ""))]
                        }
                    ])
            ])
        let reply = try await client.call(
            destination: server.uniqueName, path: "/test/echo", interface: "org.example.Echo", member: "Echo",
            arguments: [.string("hello")], timeout: .seconds(5))
        XCTAssertEqual(reply, [.string("echo: hello")])
        server.close()
        client.close()
    }
}
