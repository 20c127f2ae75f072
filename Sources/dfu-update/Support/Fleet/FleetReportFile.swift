import DFUFleet
import DFUSupport
import FirmwareUpdate
import Foundation
import NordicDFU

/// The fleet's report as `--report FILE` writes it (docs/cli-contract.md, "Fleet inventory"),
/// and the summary table printed at the end.
enum FleetReportFile {
    static func json(_ report: FleetReport) -> Data {
        let devices = report.devices.map { JSONValue.object(members($0)) }
        let summary: JSONValue = .object(
            counts(report) + [("duration_seconds", .seconds(report.duration))])
        return Data(
            (JSONValue.object([("devices", .array(devices)), ("summary", summary)]).serialized() + "\n").utf8)
    }

    /// One device's report as a rollout store keeps it.
    static func deviceJSON(_ device: FleetDeviceReport) -> Data {
        Data(JSONValue.object(members(device)).serialized().utf8)
    }

    /// A device's members: the contract's, then the fleet's additions (docs/fleet.md).
    static func members(_ device: FleetDeviceReport) -> [(String, JSONValue)] {
        [
            ("device", .string(device.device)), ("result", .string(device.result.rawValue)),
            ("error", error(device.failure)), ("version_before", .optional(device.versionBefore)),
            ("version_after", .optional(device.versionAfter)), ("bytes_sent", .int(device.bytesSent)),
            ("duration_seconds", .seconds(device.duration)),
            ("avg_speed_bytes_per_second", .double(device.averageSpeedBytesPerSecond)),
            ("retries", .int(device.retries)), ("address", .optional(device.info?.address.description)),
            ("package", .optional(device.package)), ("reason", .optional(device.reason)),
        ]
    }

    /// The contract's `error` object, or null.
    static func error(_ failure: DFUFailure?) -> JSONValue {
        guard let failure else { return .null }
        return .object([
            ("code", .int(failure.error.rawValue)), ("name", .string(failure.error.name)),
            ("message", .string(failure.message)),
        ])
    }

    static func counts(_ report: FleetReport) -> [(String, JSONValue)] {
        [FleetDeviceReport.Result.completed, .skipped, .failed, .aborted, .notStarted].map {
            ($0.rawValue, .int(report.count($0)))
        }
    }

    /// One row per device, then the totals; DETAIL is a failure's name, or why the device ended
    /// so (`up to date`). `fitting` shapes each row, the header's too, for the screen (the
    /// totals are a sentence, wrapped as the terminal wraps it).
    static func table(_ report: FleetReport, fitting: (String) -> String = { $0 }) -> String {
        let header = ["DEVICE", "RESULT", "BEFORE", "AFTER", "BYTES", "SECONDS", "KB/S", "RETRIES", "DETAIL"]
        let rows = report.devices.map { device in
            [
                device.device, device.result.rawValue, device.versionBefore ?? "-",
                device.versionAfter ?? "-",
                String(device.bytesSent), String(format: "%.1f", device.duration.seconds),
                String(format: "%.1f", device.averageSpeedBytesPerSecond / 1000), String(device.retries),
                device.failure?.error.name ?? device.reason ?? "",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let lines = ([header] + rows).map { row in
            row.enumerated().map { column, text in
                column == row.count - 1
                    ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.map(fitting)
        let totals = counts(report).map { "\($0.1.serialized()) \($0.0)" }.joined(separator: ", ")
        return
            (lines + [
                "",
                "\(Plural.count(report.devices.count, "device")): \(totals) in \(report.duration.secondsForPeople)",
            ])
            .joined(separator: "\n")
    }
}
