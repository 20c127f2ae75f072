import DBus
import Foundation
import TestSupport
import XCTest

/// Many calls and many received descriptors must leave no descriptors and little memory
/// behind. Figures are printed for the record.
final class LeakTests: TwoConnectionTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try server.exportObject(
            at: "/leak",
            interfaces: [
                DBusInterface(
                    "org.example.Leak",
                    methods: [
                        DBusMethod("Echo", in: "sa{sv}", out: "sa{sv}") { call in call.arguments },
                        DBusMethod("Descriptor", out: "h") { _ in
                            let (readEnd, writeEnd) = try makePipe()
                            close(readEnd)
                            return [.unixFD(DBusUnixFD(owning: writeEnd))]
                        },
                    ])
            ])
    }

    /// Runs `count` calls of `member` from 8 tasks; each reply is checked and dropped.
    private static func run(
        _ client: DBusConnection, _ server: String, _ member: String, count: Int, arguments: [DBusValue] = []
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for _ in stride(from: worker, to: count, by: 8) {
                        let reply = try await client.call(
                            destination: server, path: "/leak", interface: "org.example.Leak", member: member,
                            arguments: arguments, timeout: .seconds(10))
                        if member == "Descriptor" {
                            XCTAssertGreaterThanOrEqual(reply.first?.unixFDValue?.fileDescriptor ?? -1, 0)
                        } else {
                            XCTAssertEqual(reply, arguments)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    func testTenThousandCallsAndDescriptorsLeakNothing() async throws {
        let arguments: [DBusValue] = [
            .string("payload"),
            .propertyDictionary([("Value", .bytes(Array(repeating: 7, count: 200))), ("MTU", .uint16(247))]),
        ]
        // Warm up the same way, so caches, thread pools, the runtime's timer descriptor and
        // allocator arenas reach their steady state before measuring.
        let client = self.client!
        let server = self.server.uniqueName
        try await withTimeout(60) {
            try await Self.run(client, server, "Echo", count: 1000, arguments: arguments)
            try await Self.run(client, server, "Descriptor", count: 1000)
        }

        let descriptorsBefore = try openDescriptorCount()
        let memoryBefore = try residentBytes()
        let start = ContinuousClock.now
        try await withTimeout(60) {
            try await Self.run(client, server, "Echo", count: 10_000, arguments: arguments)
            try await Self.run(client, server, "Descriptor", count: 10_000)
        }
        let elapsed = seconds(since: start)
        let descriptorsAfter = try openDescriptorCount()
        let memoryAfter = try residentBytes()

        let growth = memoryAfter - memoryBefore
        print(
            "LeakTests: 10000 calls + 10000 fd receipts in \(String(format: "%.2f", elapsed)) s; "
                + "open fds \(descriptorsBefore) -> \(descriptorsAfter); "
                + "RSS \(memoryBefore / 1024) KiB -> \(memoryAfter / 1024) KiB (\(growth / 1024) KiB)")
        // The server's handler task may still hold the last pipe end it returned at either
        // measurement (it lets go just after queueing the reply): allow two, not 10,000.
        XCTAssertLessThanOrEqual(descriptorsAfter - descriptorsBefore, 2, "file descriptors leaked")
        XCTAssertLessThan(growth, 32 << 20, "resident memory grew by more than 32 MiB")
    }

    func testOpeningAndClosingConnectionsReleasesThem() async throws {
        let bus = self.bus!
        // Warm up, then measure 100 connections opened, used and closed.
        for _ in 0..<5 {
            try await Self.openUseAndClose(bus)
        }
        let descriptorsBefore = try openDescriptorCount()
        let threadsBefore = try threadCount()
        for _ in 0..<100 {
            try await Self.openUseAndClose(bus)
        }
        let descriptorsAfter = try openDescriptorCount()
        let threadsAfter = try threadCount()
        print(
            "LeakTests: 100 connections opened and closed; open fds \(descriptorsBefore) -> \(descriptorsAfter); "
                + "threads \(threadsBefore) -> \(threadsAfter)")
        // Each connection has a socket, a wake-up pipe (2 fds) and a thread; a leak would show
        // as hundreds. A loop thread may still be finishing its last steps at the measurement.
        XCTAssertLessThanOrEqual(descriptorsAfter - descriptorsBefore, 3, "connections leak descriptors")
        XCTAssertLessThanOrEqual(threadsAfter - threadsBefore, 2, "connections leak threads")
    }

    private static func openUseAndClose(_ bus: TestBus) async throws {
        let connection = try await bus.connect()
        _ = try await connection.nameOwner("org.freedesktop.DBus")
        _ = try await connection.signals(matching: DBusMatchRule(interface: "org.example.Unused"))
        connection.close()
        await connection.waitUntilDisconnected()
    }

    private func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    private func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    private func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { throw POSIXError(.EINVAL) }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
