import FirmwareUpdate
import NordicDFU

extension DFUOptions.SMP.Activation {
    /// What the device does with the new images after an update that completed, as the
    /// `result` event's `activation` says it (docs/cli-contract.md).
    var contractName: String {
        switch self {
        case .testAndConfirm, .confirmOnly: "confirmed"
        case .testOnly: "on_test"
        case .noReset: "waits_for_reset"
        }
    }

    /// The end of the result line for a person, when the new images are not simply running for
    /// good.
    var sentence: String {
        switch self {
        case .testAndConfirm, .confirmOnly: ""
        case .testOnly:
            "; it runs the new image on test: MCUboot reverts it at the next reset unless it is confirmed"
        case .noReset: "; the new image waits for a reset: the device runs its old image until it restarts"
        }
    }
}
