import DFURollout
import Foundation
import Hummingbird
import ServiceLifecycle

extension RolloutPageServer {
    /// The read-only view: the list, a rollout's page, its live events and the script.
    func addReadRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in await listPage() }
        router.get("/live.js") { _, _ in PageResponse.script(LiveScript.source) }
        // browsers ask for it; an answer without a body keeps a 404 out of their console
        router.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        router.get("/rollouts/:name") { request, context in
            await rolloutPage(request.rolloutName(context), request: request)
        }
        router.get("/rollouts/:name/events") { request, context in
            events(of: request.rolloutName(context))
        }
    }

    func listPage() async -> Response {
        do {
            var rows: [RolloutListPage.Row] = []
            for name in try await store.rollouts() {
                let (view, _) = try await view(of: name)
                rows.append(
                    .init(rollout: name, state: view.state.rawValue, total: view.total, done: view.done))
            }
            return PageResponse.html(RolloutListPage.html(rows, store: storeName))
        } catch {
            return Self.problem(error)
        }
    }

    func rolloutPage(_ name: String, request: Request) async -> Response {
        do {
            let (view, plot) = try await view(of: name, query: DeviceQuery(query: request.queryFields))
            let controls = OperatorControls.html(rollout: name, access: await access(request))
            return PageResponse.html(RolloutDetailPage.html(view, plot: plot, controls: controls))
        } catch {
            return Self.problem(error)
        }
    }

    /// Server-sent events: the rollout's counts every `liveInterval`, for `streamLifetime`; the
    /// browser then reconnects (`retry`). A stream ends at once when the server begins a graceful
    /// shutdown, so that no stream keeps a stopping server waiting.
    func events(of name: String) -> Response {
        var headers = PageResponse.headers("text/event-stream")
        headers[.cacheControl] = "no-store"
        let end = ContinuousClock.now + streamLifetime
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                while ContinuousClock.now < end, !Task.isCancelled, !Task.isShuttingDownGracefully {
                    guard let (view, plot) = try? await view(of: name) else { break }
                    try await writer.write(ByteBuffer(string: LiveEvent.data(view, plot: plot)))
                    // a shutdown cuts the wait short (the loop then ends)
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: liveInterval) }
                }
                try await writer.finish(nil)
            })
    }
}
