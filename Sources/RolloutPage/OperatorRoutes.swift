import DFURollout
import Foundation
import Hummingbird

extension RolloutPageServer {
    /// The operator's forms: log in with the token, log out, pause, resume and cancel. Each is a
    /// POST from this server's own page (Origin checked), the steering ones with the session's
    /// CSRF value; without a token every one is refused.
    func addOperatorRoutes(to router: Router<BasicRequestContext>) {
        router.post("/login") { request, context in await logIn(request, context) }
        router.post("/logout") { request, context in await logOut(request, context) }
        router.post("/rollouts/:name/:command") { request, context in
            await steer(
                request.rolloutName(context), command: context.parameters.get("command") ?? "", request,
                context)
        }
    }

    /// What the page offers the one who asks.
    func access(_ request: Request) async -> OperatorControls.Access {
        guard let sessions else { return .readOnly }
        let session = request.cookies[OperatorSessions.cookie]?.value
        guard let session, await sessions.isValid(session) else { return .loggedOut }
        return .steering(csrf: sessions.csrf(for: session))
    }

    func logIn(_ request: Request, _ context: BasicRequestContext) async -> Response {
        guard let sessions else { return readOnly() }
        guard Self.isSameOrigin(request) else { return crossOrigin() }
        let fields = await Self.formFields(request, context)
        guard let session = await sessions.logIn(with: fields["token"] ?? "") else {
            return PageResponse.problem(
                .forbidden, "That is not the operator token; the page's --operator-token-file holds it.")
        }
        let cookie = Cookie(
            name: OperatorSessions.cookie, value: session, path: "/", httpOnly: true, sameSite: .strict)
        return PageResponse.seeOther(Self.localPath(fields["next"]), cookie: cookie)
    }

    func logOut(_ request: Request, _ context: BasicRequestContext) async -> Response {
        guard let sessions else { return readOnly() }
        let session = request.cookies[OperatorSessions.cookie]?.value
        let fields = await Self.formFields(request, context)
        guard Self.isSameOrigin(request), await sessions.authorizes(session: session, csrf: fields["csrf"]),
            let session
        else { return crossOrigin() }
        await sessions.logOut(session)
        return PageResponse.seeOther("/")
    }

    func steer(_ name: String, command: String, _ request: Request, _ context: BasicRequestContext) async
        -> Response
    {
        guard let sessions else { return readOnly() }
        guard let command = RolloutCommand(rawValue: command) else {
            return PageResponse.problem(.notFound, "No such action: pause, resume and cancel are.")
        }
        let fields = await Self.formFields(request, context)
        let session = request.cookies[OperatorSessions.cookie]?.value
        guard Self.isSameOrigin(request), await sessions.authorizes(session: session, csrf: fields["csrf"])
        else {
            return crossOrigin()
        }
        do {
            try await store.apply(command, to: name)
            return PageResponse.seeOther("/rollouts/\(HTMLText.queryValue(name))")
        } catch RolloutStoreError.invalidTransition(let from, _) {
            return PageResponse.problem(
                .conflict, "Rollout \(name) is \(from.rawValue): it cannot \(command.rawValue) now.")
        } catch {
            return Self.problem(error)
        }
    }

    private func readOnly() -> Response {
        PageResponse.problem(
            .forbidden, "This page is read-only: start rollout serve with --operator-token-file to steer.")
    }

    private func crossOrigin() -> Response {
        PageResponse.problem(
            .forbidden, "Refused: log in with the operator token on this page, then use its buttons.")
    }

    /// A browser names the page a form came from in Origin; one from another site is refused.
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority, let url = URL(string: origin), let originHost = url.host
        else {
            return false
        }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority == host || "[\(originHost)]:\(url.port ?? 80)" == host
    }

    /// Where a login goes next: a path on this server only.
    static func localPath(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\") else { return "/" }
        return next
    }

    static func formFields(_ request: Request, _ context: BasicRequestContext) async -> [String: String] {
        var request = request
        guard let body = try? await request.collectBody(upTo: 16 * 1024) else { return [:] }
        return FormFields.parse(String(buffer: body))
    }
}
