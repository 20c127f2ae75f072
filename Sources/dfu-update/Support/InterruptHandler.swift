import Dispatch
import Foundation

/// Calls `onInterrupt` on SIGINT (Ctrl-C), and on the other signals given (SIGTERM, which
/// systemd sends to stop a service), instead of letting the signal end the process, so that an
/// update can abort cleanly; the default handling returns when this is released.
final class InterruptHandler {
    private let signals: [Int32]
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32] = [SIGINT], onInterrupt: @escaping @Sendable () -> Void) {
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: onInterrupt)
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
