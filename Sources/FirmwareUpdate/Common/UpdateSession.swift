import DFUSupport
import GATT
import Logging
import NordicDFU

/// What both families' updates share between their steps: where events and log lines go, the
/// options and the counters of the result. What only one family keeps lives in that family's
/// run (`NordicRunState`). Used only by the task that runs the update.
final class UpdateSession {
    let central: any GATTCentral
    let device: DeviceIdentifier
    let options: DFUOptions
    let controller: DFUController
    private let events: AsyncStream<DFUEvent>.Continuation
    private let observer: @Sendable (DFUEvent) -> Void
    /// The caller's logger with the metadata `device` (and `part` while a part is sent).
    var logger: Logger
    let startTime: Duration

    /// What the result counts.
    var tally = UpdateTally()
    private var lastState: DFUState?
    /// The family's advice for a failure; nil for the error's own.
    private let advice: (DFUError) -> String?

    init(
        central: any GATTCentral, device: DeviceIdentifier, options: DFUOptions, controller: DFUController,
        events: AsyncStream<DFUEvent>.Continuation, observer: @escaping @Sendable (DFUEvent) -> Void,
        logger: Logger, advice: @escaping (DFUError) -> String?
    ) {
        self.logger = logger
        self.advice = advice
        self.central = central
        self.device = device
        self.options = options
        self.controller = controller
        self.events = events
        self.observer = observer
        self.startTime = central.linkTime.now()
    }

    /// The device as the user named it, for messages.
    var deviceName: String { device.description }

    var linkTime: any LinkTime { central.linkTime }

    func emit(_ event: DFUEvent) {
        observer(event)
        events.yield(event)
    }

    /// Reports a state once, however often it is entered in a row.
    func state(_ state: DFUState) {
        guard state != lastState else { return }
        lastState = state
        emit(.state(state))
    }

    /// Logs to the caller's logger and reports the line as an event.
    func log(_ level: DFULogLevel, _ message: String) {
        logger.log(level: level.loggerLevel, "\(message)")
        emit(.log(level, message))
    }

    /// Sets (or with `nil` clears) the `part` logging metadata.
    func loggingPart(_ part: Int?, of total: Int) {
        logger[metadataKey: "part"] = part.map { .string("\($0)/\(total)") }
    }

    /// A failure of this update; `advice`, when given, instead of the family's.
    func failure(_ error: DFUError, _ detail: String, advice: String? = nil) -> DFUFailure {
        DFUFailure(error, device: deviceName, detail: detail, advice: advice ?? self.advice(error))
    }

    /// Ends the event stream with the result.
    func finish(_ outcome: DFUResult.Outcome) {
        emit(.result(tally.result(outcome, duration: linkTime.now() - startTime)))
        events.finish()
    }
}

extension DFULogLevel {
    /// The swift-log level of a line at this level.
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: .trace
        case .verbose: .debug
        case .info, .application: .info
        case .warning: .warning
        case .error: .error
        }
    }
}

extension UpdateSession {
    /// Maps a transport error to the `DFUError` of the step that failed. `DFUFailure`s and
    /// cancellation pass through unchanged.
    func mapped(_ error: any Error, during step: DFUError) -> any Error {
        if error is DFUFailure || error is CancellationError { return error }
        guard let gattError = error as? GATTError else {
            return failure(step, "\(error)")
        }
        switch gattError {
        case .bluetoothUnavailable(let reason): return failure(.bluetoothDisabled, reason)
        case .disconnected: return failure(.deviceDisconnected, gattError.description)
        case .connectionFailed: return failure(.failedToConnect, gattError.description)
        case .timeout:
            return failure(
                step == .failedToConnect ? step : .receivingNotificationFailed, gattError.description)
        case .attributeNotFound: return failure(.serviceDiscoveryFailed, gattError.description)
        case .operationFailed: return failure(step, gattError.description)
        case .securityFailed(_, let kind, let reason): return failure(DFUError(securityFailure: kind), reason)
        }
    }
}
