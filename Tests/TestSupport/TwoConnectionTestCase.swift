import DBus
import XCTest

/// A test case with a private bus (`TestBus`) and two connections to it, made before each test
/// and closed after it: `server` exports what the test calls, `client` calls it. Subclasses
/// export their objects in `setUp` after calling `super`.
open class TwoConnectionTestCase: XCTestCase {
    package var bus: TestBus!
    public var server: DBusConnection!
    public var client: DBusConnection!

    /// Whether the bus listens on TCP (which cannot pass file descriptors) instead of a UNIX socket.
    open var busOverTCP: Bool { false }

    open override func setUp() async throws {
        bus = try TestBus(tcp: busOverTCP)
        server = try await bus.connect()
        client = try await bus.connect()
    }

    open override func tearDown() async throws {
        server?.close()
        client?.close()
        bus?.kill()
        // XCTest keeps every test case object until the run ends; let go of ours now.
        (server, client, bus) = (nil, nil, nil)
    }
}
