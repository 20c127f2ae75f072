import GATT

extension UpdateSession {
    /// Begins reconnection `attempt` after `failure`: counts and logs it, drops the link and
    /// reports the new connection's state.
    func beginReconnection(_ attempt: Int, after failure: DFUFailure, dropping peripheral: any GATTPeripheral)
        async
    {
        tally.retries += 1
        log(.info, "\(failure.detail); reconnecting (retry \(attempt) of \(options.retries))")
        await peripheral.disconnect()
        state(.connecting)
    }

    /// Ends an update that `error` stopped: drops the link to `peripheral`, then reports the
    /// user's abort, or the failure as one `DFUError`.
    func end(with error: any Error, disconnecting peripheral: (any GATTPeripheral)?) async {
        let aborted = controller.isAborted || error is CancellationError
        if let peripheral {
            // in a task of its own: a cancelled update still drops its link
            await Task { await peripheral.disconnect() }.value
        }
        if aborted {
            log(.info, "aborted by the user")
            state(.aborted)
            finish(.aborted)
            return
        }
        let failure =
            (mapped(error, during: .invalidInternalState) as? DFUFailure)
            ?? self.failure(.invalidInternalState, "\(error)")
        // the result carries the failure; the line is for logs that follow the update
        log(.info, "failed: \(failure.message)")
        finish(.failed(failure))
    }
}
