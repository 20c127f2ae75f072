import DFURollout
import FirmwareUpdate
import Foundation
import NordicDFU

/// A device's failure as the page shows it: the error's class (the `DFUError` case the gateway's
/// fleet report names), the message, and what to try.
struct DeviceFailure: Sendable, Equatable {
    /// `unknown` when the report names none.
    var errorClass: String
    var message: String
    var advice: String?

    /// The failure of a failed or aborted device, nil for any other.
    init?(_ device: DeviceStatus) {
        guard device.result == .failed || device.result == .aborted else { return nil }
        let error = Self.reportError(device.report)
        errorClass = error?["name"] as? String ?? "unknown"
        message = device.error ?? error?["message"] as? String ?? "no message was reported"
        advice = DFUError.allCases.first { $0.name == errorClass }?.advice
    }

    /// The report's `error` object (docs/cli-contract.md, the fleet report).
    private static func reportError(_ report: Data?) -> [String: Any]? {
        guard let report, let object = try? JSONSerialization.jsonObject(with: report) as? [String: Any]
        else { return nil }
        return object["error"] as? [String: Any]
    }
}
