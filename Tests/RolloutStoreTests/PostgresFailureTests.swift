import DFURollout
import DFURolloutPostgres
import Foundation
import PostgresNIO
import RolloutStoreTesting
import TestSupport
import XCTest

/// The store's failures in people's words, against the scratch server: a closed port, an unknown
/// host, a password missing or wrong, TLS required of a server without it, a database never
/// migrated. Each names the server, says what to try, is typed by its kind, and dumps no type.
final class PostgresFailureTests: PostgresTestCase {
    func testAServerThatIsDownIsAnOutageNamingItsHostAndPort() async throws {
        var location = backend.server.location
        location.port = try LoopbackPort.free()
        let failure = try await connectFailure(location, password: backend.server.password)
        XCTAssertEqual(failure.kind, .unreachable)
        XCTAssertTrue(failure.message.contains("127.0.0.1:\(location.port)"), failure.message)
        XCTAssertTrue(failure.message.contains("start the PostgreSQL server"), failure.message)
    }

    /// A server that stops answering (hung, or a network that drops every packet) with the
    /// connection open: each call is an outage within the store's call timeout. The caller (a
    /// gateway's loop) is not held until the server answers again.
    func testAServerThatStopsAnsweringIsAnOutageWithinTheCallTimeout() async throws {
        let store = try await PostgresRolloutStore.connect(
            to: backend.server.location, password: backend.server.password, callTimeout: .seconds(1))
        _ = try await store.rollouts()  // the pool holds an open connection now
        let frozen = try backend.server.freeze()
        // thawed after a while even if the call waits for the server, so that the test fails
        // rather than hangs
        let thawing = Task {
            try? await Task.sleep(for: .seconds(10))
            ScratchPostgres.thaw(frozen)
        }
        let start = ContinuousClock.now
        do {
            _ = try await store.rollouts()
            XCTFail("a frozen server answered")
        } catch RolloutStoreError.storage(let failure) {
            XCTAssertEqual(failure.kind, .unreachable)
            XCTAssertTrue(failure.message.contains("no answer from the server at"), failure.message)
        }
        let waited = ContinuousClock.now - start
        thawing.cancel()
        ScratchPostgres.thaw(frozen)
        XCTAssertLessThan(waited, .seconds(8), "the call waited for the server")
        _ = try await store.rollouts()
        try await store.close()
    }

    func testAnUnknownHostSaysToCheckTheHostName() async throws {
        var location = backend.server.location
        location.host = "no-such-store.invalid"
        let failure = try await connectFailure(location, password: backend.server.password)
        XCTAssertEqual(failure.kind, .unreachable)
        XCTAssertTrue(failure.message.contains("no-such-store.invalid is unknown"), failure.message)
        XCTAssertTrue(failure.message.contains("check the host name"), failure.message)
    }

    func testAMissingPasswordSaysWhereOneGoes() async throws {
        let none = PostgresPassword(secret: nil, source: "no password file")
        let failure = try await connectFailure(backend.server.location, password: none)
        XCTAssertEqual(failure.kind, .authentication)
        XCTAssertTrue(
            failure.message.contains("asks a password of postgres and none was given"), failure.message)
        XCTAssertTrue(failure.message.contains("(no password file)"), failure.message)
        XCTAssertTrue(failure.message.contains("DFU_UPDATE_STORE_PASSWORD"), failure.message)
        let line = "127.0.0.1:\(backend.server.location.port):postgres:postgres:PASSWORD"
        XCTAssertTrue(failure.message.contains("a password file line \(line)"), failure.message)
    }

    func testAWrongPasswordNamesWhereItCameFrom() async throws {
        let wrong = PostgresPassword(secret: "wrong", source: "line 3 of /home/op/.pgpass")
        let failure = try await connectFailure(backend.server.location, password: wrong)
        XCTAssertEqual(failure.kind, .authentication)
        XCTAssertTrue(
            failure.message.hasPrefix(
                "PostgreSQL 28P01: password authentication failed for user \"postgres\""),
            failure.message)
        XCTAssertTrue(
            failure.message.contains("the password came from line 3 of /home/op/.pgpass"), failure.message)
        XCTAssertFalse(failure.message.contains("wrong"), failure.message)
    }

    func testTLSRequiredOfAServerWithoutIt() async throws {
        var location = backend.server.location
        location.tls = .require
        let failure = try await connectFailure(location, password: backend.server.password)
        XCTAssertEqual(failure.kind, .tls)
        XCTAssertTrue(failure.message.contains("offers no TLS"), failure.message)
        XCTAssertTrue(failure.message.contains("?sslmode=disable"), failure.message)
    }

    /// A database that was never migrated: the operator is told to run `rollout migrate` as the
    /// database's owner.
    func testADatabaseNeverMigratedSaysToMigrate() async throws {
        let database = "never_migrated_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await backend.withClient { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(database)"))
        }
        var location = backend.server.location
        location.database = database
        let store = try await PostgresRolloutStore.connect(to: location, password: backend.server.password)
        do {
            try await store.create(RolloutFixtures.spec(devices: 1))
            XCTFail("created a rollout in a database without tables")
        } catch RolloutStoreError.storage(let failure) {
            XCTAssertEqual(failure.kind, .notMigrated)
            XCTAssertTrue(failure.message.contains("relation \"rollouts\" does not exist"), failure.message)
            XCTAssertTrue(
                failure.message.contains("run `dfu-update rollout migrate --store"), failure.message)
            XCTAssertTrue(failure.message.contains("as the database's owner"), failure.message)
        }
        try await store.close()
    }

    /// Connects and returns how it failed, checking what every failure's message must be.
    private func connectFailure(
        _ location: PostgresStoreLocation, password: String?, line: UInt = #line
    ) async throws -> StoreFailure {
        try await connectFailure(
            location, password: PostgresPassword(secret: password, source: "a test"), line: line)
    }

    private func connectFailure(
        _ location: PostgresStoreLocation, password: PostgresPassword, line: UInt = #line
    ) async throws -> StoreFailure {
        do {
            let store = try await PostgresRolloutStore.connect(
                to: location, password: password, callTimeout: .seconds(5))
            try await store.close()
        } catch RolloutStoreError.storage(let failure) {
            for dump in ["PSQLError", "SocketAddressError", "NIOConnectionError", "underlying", "code:"] {
                XCTAssertFalse(failure.message.contains(dump), failure.message, line: line)
            }
            return failure
        }
        XCTFail("connected to \(location.description)", line: line)
        throw ScratchPostgresError(description: "connected to \(location.description)")
    }
}
