import Dispatch
import Foundation

/// Calls `onInterrupt` on SIGINT (Ctrl-C) instead of letting the signal end the process, so
/// that an update can abort cleanly; the default handling returns when this is released.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(onInterrupt: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: onInterrupt)
        source.resume()
    }

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
