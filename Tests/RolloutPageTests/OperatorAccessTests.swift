import Foundation
import XCTest

@testable import RolloutPage

/// The operator token's file and the sessions and CSRF values it leads to.
final class OperatorAccessTests: XCTestCase {
    private func tokenFile(_ text: String, permissions: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
            .path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testReadsATokenOnlyItsOwnerMayRead() throws {
        let token = try OperatorToken(contentsOf: try tokenFile("0123456789abcdef0123\n", permissions: 0o600))
        XCTAssertTrue(token.accepts("0123456789abcdef0123"))
        XCTAssertFalse(token.accepts("0123456789abcdef0124"))
        XCTAssertFalse(token.accepts(""))
    }

    func testRefusesATokenFileOthersMayRead() throws {
        let path = try tokenFile("0123456789abcdef0123", permissions: 0o644)
        XCTAssertThrowsError(try OperatorToken(contentsOf: path)) { error in
            XCTAssertEqual("\(error)", "\(path) may be read by others than its owner: chmod 600 it")
        }
    }

    func testRefusesAShortOrMissingToken() throws {
        XCTAssertThrowsError(try OperatorToken(contentsOf: try tokenFile("short", permissions: 0o600))) {
            XCTAssertTrue("\($0)".contains("no token of at least 16 characters"), "\($0)")
        }
        XCTAssertThrowsError(try OperatorToken(contentsOf: "/nonexistent/token")) {
            XCTAssertTrue("\($0)".contains("does not exist"), "\($0)")
        }
    }

    func testSessionsNeedTheTokenAndTheirOwnCSRFValue() async throws {
        let sessions = OperatorSessions(token: OperatorToken(secret: "0123456789abcdef0123"))
        let wrong = await sessions.logIn(with: "guess")
        XCTAssertNil(wrong)
        let session = try await XCTUnwrapAsync(await sessions.logIn(with: "0123456789abcdef0123"))
        let other = try await XCTUnwrapAsync(await sessions.logIn(with: "0123456789abcdef0123"))
        let csrf = sessions.csrf(for: session)
        var authorized = await sessions.authorizes(session: session, csrf: csrf)
        XCTAssertTrue(authorized)
        authorized = await sessions.authorizes(session: other, csrf: csrf)
        XCTAssertFalse(authorized, "one session's CSRF value is not another's")
        authorized = await sessions.authorizes(session: session, csrf: nil)
        XCTAssertFalse(authorized)
        authorized = await sessions.authorizes(session: "forged", csrf: sessions.csrf(for: "forged"))
        XCTAssertFalse(authorized, "a session the server did not make")
        await sessions.logOut(session)
        authorized = await sessions.authorizes(session: session, csrf: csrf)
        XCTAssertFalse(authorized)
    }

    func testLoginGoesOnlyToAPathOfThisServer() {
        XCTAssertEqual(RolloutPageServer.localPath("/rollouts/a"), "/rollouts/a")
        XCTAssertEqual(RolloutPageServer.localPath("//evil.example/"), "/")
        XCTAssertEqual(RolloutPageServer.localPath("https://evil.example/"), "/")
        XCTAssertEqual(RolloutPageServer.localPath(nil), "/")
    }

    private func XCTUnwrapAsync<T>(_ value: T?) async throws -> T { try XCTUnwrap(value) }
}
