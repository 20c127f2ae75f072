import DFUSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// Serves a Prometheus registry at `GET /metrics` over HTTP/1.1 for Prometheus to scrape
/// (docs/metrics.md); every other path is 404. One request per connection, so that a stop
/// waits for the scrapes in progress only. A `Service`: it stops on the service group's graceful
/// shutdown, or when its task is cancelled.
public final class MetricsServer: Service, Sendable {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let listener: NIOAsyncChannel<Connection, Never>
    private let registry: PrometheusCollectorRegistry
    /// Set when it is told to stop: what closing the listener throws then is no failure.
    private let closing = Locked(false)
    /// The port it listens on (the one given, or the one chosen for port 0).
    public let port: Int

    private init(listener: NIOAsyncChannel<Connection, Never>, registry: PrometheusCollectorRegistry) {
        self.listener = listener
        self.registry = registry
        port = listener.channel.localAddress?.port ?? 0
    }

    /// Listens on `address` (it serves from `run()` on).
    public static func bind(_ address: MetricsAddress, registry: PrometheusCollectorRegistry) async throws
        -> MetricsServer
    {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        return MetricsServer(listener: listener, registry: registry)
    }

    /// Serves until the graceful shutdown, which stops the listening and lets the requests in
    /// progress end (at most 5 s each), or until a cancellation, which ends them too.
    public func run() async throws {
        let (listener, closing) = (listener, closing)
        let close: @Sendable () -> Void = {
            closing.withLock { $0 = true }
            listener.channel.close(promise: nil)
        }
        do {
            try await withTaskCancellationOrGracefulShutdownHandler {
                try await listener.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await connection in connections {
                            group.addTask { _ = try? await self.serve(connection) }
                        }
                    }
                }
            } onCancelOrGracefulShutdown: {
                close()
            }
        } catch  where closing.withLock({ $0 }) {
            // stopped as asked
        }
    }

    private func serve(_ connection: Connection) async throws {
        try await withRealTimeLimit(.seconds(5)) {
            try await connection.executeThenClose { requests, responses in
                var head: HTTPRequestHead?
                for try await part in requests {
                    switch part {
                    case .head(let request): head = request
                    case .body: break
                    case .end:
                        guard let head else { return }
                        try await self.respond(to: head, with: responses)
                        return
                    }
                }
            }
        }
    }

    private func respond(
        to request: HTTPRequestHead, with responses: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    )
        async throws
    {
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        let (status, type, body): (HTTPResponseStatus, String, [UInt8])
        if path == "/metrics", request.method == .GET || request.method == .HEAD {
            (status, type, body) = (.ok, "text/plain; version=0.0.4; charset=utf-8", registry.emitToBuffer())
        } else {
            (status, type, body) = (
                .notFound, "text/plain; charset=utf-8", Array("not found: the series are at /metrics\n".utf8)
            )
        }
        let headers = HTTPHeaders([
            ("Content-Type", type), ("Content-Length", String(body.count)), ("Connection", "close"),
        ])
        try await responses.write(
            .head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
        if request.method != .HEAD {
            try await responses.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
        }
        try await responses.write(.end(nil))
    }
}
