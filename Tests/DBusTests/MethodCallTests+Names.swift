import DBus
import TestSupport
import XCTest

/// Well-known names: requested, owned, called by, released.
extension MethodCallTests {
    func testRequestAndReleaseName() async throws {
        let other = try await bus.connect()
        defer { other.close() }
        let first = try await server.requestName("org.example.Named")
        XCTAssertEqual(first, .primaryOwner)
        let again = try await server.requestName("org.example.Named")
        XCTAssertEqual(again, .alreadyOwner)
        let taken = try await other.requestName("org.example.Named")
        XCTAssertEqual(taken, .exists)
        let owner = try await client.nameOwner("org.example.Named")
        XCTAssertEqual(owner, server.uniqueName)
        let reply = try await client.call(
            destination: "org.example.Named", path: "/test", interface: "org.example.Test", member: "Echo",
            arguments: [.string("by name")])
        XCTAssertEqual(reply, [.string("echo: by name")])
        let released = try await server.releaseName("org.example.Named")
        XCTAssertTrue(released)
        let noOwner = try await client.nameOwner("org.example.Named")
        XCTAssertNil(noOwner)
    }
}
