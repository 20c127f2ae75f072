import DFURollout
import Foundation
import Hummingbird
import Logging

/// `rollout serve`: the rollouts of one store as web pages (docs/rollout-page.md). Reads through
/// `RolloutStore` only; steers (pause, resume, cancel) only for an operator who gave the token.
public struct RolloutPageServer: Sendable {
    let store: any RolloutStore
    /// The store for people (never a password).
    let storeName: String
    let sessions: OperatorSessions?
    let throughput = ThroughputRecorder()
    /// How often the live view sends a rollout's counts.
    let liveInterval: Duration
    /// How long one event stream lasts before the browser reconnects, so that a stopping
    /// server's connections drain within it.
    let streamLifetime: Duration

    public init(
        store: any RolloutStore, storeName: String, token: OperatorToken?,
        liveInterval: Duration = .seconds(2),
        streamLifetime: Duration = .seconds(20)
    ) {
        self.store = store
        self.storeName = storeName
        self.sessions = token.map(OperatorSessions.init(token:))
        self.liveInterval = liveInterval
        self.streamLifetime = streamLifetime
    }

    /// The server listening at `address`; `onRunning` learns the port it took (for port 0).
    public func application(
        listen address: ListenAddress, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        addReadRoutes(to: router)
        addOperatorRoutes(to: router)
        return Application(
            router: router,
            configuration: .init(
                address: .hostname(address.host, port: address.port), serverName: "dfu-update"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? address.port) },
            logger: logger)
    }

    /// The rollout's view for `query` (without devices when `query` is nil: the counts only), its
    /// throughput sampled on the way.
    func view(of rollout: String, query: DeviceQuery? = nil) async throws -> (RolloutView, String) {
        var listing = (query ?? DeviceQuery()).listing
        if query == nil { listing.limit = 0 }
        let view = RolloutView(
            rollout: rollout, listing: try await store.listing(of: rollout, listing),
            query: query ?? DeviceQuery())
        let samples = await throughput.record(rollout, done: view.done)
        return (view, ThroughputPlot.svg(samples))
    }

    /// A store's failure as a page: a missing rollout is 404, anything else 503 with the store's words.
    static func problem(_ error: any Error) -> Response {
        switch error {
        case RolloutStoreError.noSuchRollout(let name):
            return PageResponse.problem(
                .notFound, "The store has no rollout named \(name); the list names those it has.")
        case let error as RolloutStoreError:
            return PageResponse.problem(
                .serviceUnavailable, "\(error.description); the page tries again when reloaded.")
        default:
            return PageResponse.problem(.internalServerError, "The page failed: \(error)")
        }
    }
}

extension Request {
    /// The rollout a route names (`/rollouts/NAME…`), percent-decoded.
    func rolloutName(_ context: some RequestContext) -> String {
        let raw = context.parameters.get("name") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    /// The query's fields (`?state=failed&page=2`).
    var queryFields: [String: String] { FormFields.parse(uri.query ?? "") }
}
