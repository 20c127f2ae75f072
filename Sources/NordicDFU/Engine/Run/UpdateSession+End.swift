import GATT

extension UpdateSession {
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
