import Logging
import ServiceLifecycle

/// Calls `onInterrupt` on SIGINT (Ctrl-C), instead of letting the signal end the process, so
/// that an update can abort cleanly: a swift-service-lifecycle group whose one service waits for
/// the graceful shutdown that SIGINT starts. Released, it stops listening.
final class InterruptHandler {
    private let group: Task<Void, Never>

    init(onInterrupt: @escaping @Sendable () -> Void) {
        let waiting = ServiceGroupConfiguration.ServiceConfiguration(
            service: ClosureService {
                try await gracefulShutdown()
                onInterrupt()
            },
            successTerminationBehavior: .gracefullyShutdownGroup)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [waiting], gracefulShutdownSignals: [.sigint],
                logger: Logger(label: "dfu-update.signals")))
        self.group = Task { try? await group.run() }
    }

    deinit { group.cancel() }
}
