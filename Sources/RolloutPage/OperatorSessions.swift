import Crypto
import Foundation

/// Who may steer rollouts from a browser: an operator who gave the token gets a session cookie
/// (HttpOnly, SameSite=Strict), and every pause, resume or cancel form carries that session's
/// CSRF value, an HMAC of the session under a key made when the server starts.
actor OperatorSessions {
    static let cookie = "dfu_operator"

    private let token: OperatorToken
    private let key = SymmetricKey(size: .bits256)
    private var sessions: Set<String> = []

    init(token: OperatorToken) { self.token = token }

    /// A new session for the one who gave `candidate`, or nil when it is not the token.
    func logIn(with candidate: String) -> String? {
        guard token.accepts(candidate) else { return nil }
        let session = Self.randomHex()
        sessions.insert(session)
        return session
    }

    func logOut(_ session: String) { sessions.remove(session) }

    func isValid(_ session: String?) -> Bool { session.map { sessions.contains($0) } ?? false }

    /// The value the session's forms carry.
    nonisolated func csrf(for session: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Array(session.utf8), using: key).map {
            String(format: "%02x", $0)
        }
        .joined()
    }

    /// Whether a form may act: a live session, and its CSRF value.
    func authorizes(session: String?, csrf: String?) -> Bool {
        guard let session, sessions.contains(session), let csrf else { return false }
        return Self.equal(Array(csrf.utf8), Array(self.csrf(for: session).utf8))
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
    }
}
