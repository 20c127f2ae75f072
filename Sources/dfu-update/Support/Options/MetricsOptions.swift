import ArgumentParser
import MetricsEndpoint

extension MetricsAddress: ExpressibleByArgument {
    /// `HOST:PORT`, as `127.0.0.1:9464` or `[::1]:9464`.
    public init?(argument: String) { self.init(parsing: argument) }
}

/// `--metrics HOST:PORT`: Prometheus metrics of the command's updates (docs/metrics.md).
struct MetricsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics (docs/metrics.md), e.g. 127.0.0.1:9464; a warning when HOST is not a loopback address. Default: no metrics served.",
            valueName: "host:port"))
    var metrics: MetricsAddress?

    /// When asked: bootstraps swift-metrics' Prometheus backend and listens (the server serves
    /// from its `run()`); warns on stderr when other machines may connect.
    func start() async throws -> MetricsServer? {
        guard let address = metrics else { return nil }
        let registry = PrometheusBackend.bootstrap()
        let server: MetricsServer
        do {
            server = try await MetricsServer.bind(address, registry: registry)
        } catch {
            throw CommandFailure(
                errorClass: "metrics_unavailable",
                message: "--metrics \(address): cannot listen there: \(ListenFailure.reason(error))",
                exitCode: .usage)
        }
        if !address.isLoopback {
            TerminalDisplay.shared.print(
                "warning: --metrics \(address) is not a loopback address: other machines can read this "
                    + "command's metrics (its devices' progress and failures); use 127.0.0.1 unless they should"
            )
        }
        return server
    }
}
