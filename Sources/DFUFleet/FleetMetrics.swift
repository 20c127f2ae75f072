import DFUSupport
import FirmwareUpdate
import Metrics
import NordicDFU

/// A fleet's updates as swift-metrics series (docs/metrics.md), counted from the events the fleet
/// sends already: give it each `FleetEvent`. Nothing is emitted until the program bootstraps a
/// metrics backend (or passes a factory of its own).
public final class FleetMetrics: Sendable {
    private struct State {
        /// Each planned device's protocol family (`secure`, `legacy`, `smp`), by device.
        var families: [String: String] = [:]
        /// Devices whose update reached the engine in this run.
        var started: Set<String> = []
        /// The current link rate of each update in progress, by device.
        var rates: [String: Double] = [:]
    }

    private let state = Locked(State())
    private let factory: any MetricsFactory
    private let linkRate: Gauge

    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        linkRate = Gauge(label: "dfu_link_rate_bytes_per_second", factory: factory)
    }

    public func observe(_ event: FleetEvent) {
        switch event {
        case .planned(let entry):
            let family = entry.info?.dfuProtocol?.rawValue ?? "unknown"
            state.withLock { $0.families[entry.device] = family }
        case .device(let device, let update):
            observe(update, of: device)
        case .finished(let report):
            finish(report)
        case .halted:
            break
        }
    }

    private func observe(_ event: DFUEvent, of device: String) {
        let (family, isNew) = state.withLock { state in
            (state.families[device] ?? "unknown", state.started.insert(device).inserted)
        }
        if isNew { counter("dfu_updates_started_total", family).increment() }
        switch event {
        case .progress(let progress):
            setRate(progress.currentSpeedBytesPerSecond, of: device)
        case .result(let result):
            // every attempt's bytes, resent ones included (a fleet may retry a whole update)
            counter("dfu_bytes_sent_total", family).increment(by: result.bytesSent)
            counter("dfu_bytes_resent_total", family).increment(by: result.bytesResent)
        case .state, .version, .log:
            break
        }
    }

    private func finish(_ report: FleetDeviceReport) {
        let (family, wasStarted) = state.withLock { state in
            let started = state.started.remove(report.device) != nil
            return (state.families.removeValue(forKey: report.device) ?? "unknown", started)
        }
        setRate(nil, of: report.device)
        // an update that ended before the engine (not found, no connection) started all the same
        if !wasStarted, report.result != .notStarted {
            counter("dfu_updates_started_total", family).increment()
        }
        switch report.result {
        case .completed: counter("dfu_updates_completed_total", family).increment()
        case .skipped: counter("dfu_updates_skipped_total", family).increment()
        case .aborted: counter("dfu_updates_aborted_total", family).increment()
        case .failed:
            let errorClass = report.failure?.error.name ?? "unknown"
            Counter(
                label: "dfu_updates_failed_total",
                dimensions: [("family", family), ("error_class", errorClass)],
                factory: factory
            ).increment()
        case .notStarted:
            break
        }
    }

    /// The gauge is the sum over the updates in progress: the throughput of this process.
    private func setRate(_ rate: Double?, of device: String) {
        let total = state.withLock { state in
            state.rates[device] = rate
            return state.rates.values.reduce(0, +)
        }
        linkRate.record(total)
    }

    private func counter(_ label: String, _ family: String) -> Counter {
        Counter(label: label, dimensions: [("family", family)], factory: factory)
    }
}
