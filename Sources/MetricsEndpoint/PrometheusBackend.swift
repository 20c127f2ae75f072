import Metrics
import Prometheus

/// The Prometheus backend of swift-metrics for a command's process: one registry, bootstrapped
/// once, that the `MetricsServer` serves.
public enum PrometheusBackend {
    /// Bootstraps swift-metrics with a Prometheus registry (once per process, as swift-metrics
    /// requires) and returns that registry.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }
}
