import DFUSupport
import Foundation

/// What `dfu-bench link` prints: text for people, or JSON Lines (`--json`).
struct LinkReport {
    let json: Bool

    /// The link's figures, `measured` at the "start" or "end" of the run, or their "mean".
    func link(_ link: LinkFigures, measured: String) {
        if json {
            emit([
                ("benchmark", "\"link\""), ("measured", "\"\(measured)\""),
                ("request_round_trip_ms", format(link.requestRoundTrip.seconds * 1000)),
                ("request_write_response_ms", format(link.requestWriteResponse.seconds * 1000)),
                ("receipt_round_trip_ms", format(link.receiptRoundTrip.seconds * 1000)),
                ("raw_bytes_per_second", format(link.rawBytesPerSecond)),
                ("packet_bytes", "\(link.packetBytes)"), ("object_bytes", "\(link.objectSize)"),
                ("raw_cpu_seconds_per_mb", format(link.rawCPUSecondsPerMB)),
                ("request_cpu_ms", format(link.requestCPUSeconds * 1000)),
            ])
        } else {
            print(
                "link (\(measured)): control point round trip \(format(link.requestRoundTrip.seconds * 1000)) ms "
                    + "(write response \(format(link.requestWriteResponse.seconds * 1000)) ms), "
                    + "packet receipt round trip \(format(link.receiptRoundTrip.seconds * 1000)) ms, "
                    + "raw write without response \(kB(link.rawBytesPerSecond)) "
                    + "(\(link.packetBytes)-byte packets, \(link.objectSize)-byte objects), "
                    + "CPU \(format(link.rawCPUSecondsPerMB)) s/MB streaming, "
                    + "\(format(link.requestCPUSeconds * 1000)) ms per round trip")
        }
    }

    func update(_ run: LinkUpdateRun, imageBytes: Int, protocolBound: Duration, deviceBound: Duration) {
        let path = run.acquireWrite ? "acquire_write" : "write_value"
        let protocolRate = Double(imageBytes) / protocolBound.seconds
        let deviceRate = Double(imageBytes) / deviceBound.seconds
        if json {
            emit([
                ("benchmark", "\"link_dfu\""), ("write_path", "\"\(path)\""),
                ("image_bytes", "\(imageBytes)"),
                ("transfer_seconds", format(run.transfer.seconds)),
                ("bytes_per_second", format(run.bytesPerSecond)),
                ("protocol_bound_bytes_per_second", format(protocolRate)),
                ("ratio_to_protocol_bound", format(run.bytesPerSecond / protocolRate)),
                ("device_bound_bytes_per_second", format(deviceRate)),
                ("ratio_to_device_bound", format(run.bytesPerSecond / deviceRate)),
                ("cpu_seconds", format(run.cpuSeconds)), ("bytes_sent", "\(run.bytesSent)"),
                ("cpu_seconds_per_mb", format(run.cpuSecondsPerMB)), ("retries", "\(run.retries)"),
            ])
        } else {
            print(
                "DFU \(imageBytes) bytes, \(path): \(kB(run.bytesPerSecond)) in "
                    + "\(format(run.transfer.seconds)) s; protocol bound \(kB(protocolRate)) "
                    + "(ratio \(format(run.bytesPerSecond / protocolRate))); with dfu-sim's flash "
                    + "\(kB(deviceRate)) (ratio \(format(run.bytesPerSecond / deviceRate))); "
                    + "CPU \(format(run.cpuSecondsPerMB)) s/MB; retries \(run.retries)")
        }
    }

    /// An update through `dfu-sim --bluetoothd-stand-in` (`dfu-bench host`): no link to bound it.
    func hostUpdate(_ run: LinkUpdateRun) {
        if json {
            emit([
                ("benchmark", "\"host_dfu\""), ("image_bytes", "\(run.imageBytes)"),
                ("transfer_seconds", format(run.transfer.seconds)),
                ("bytes_per_second", format(run.bytesPerSecond)), ("cpu_seconds", format(run.cpuSeconds)),
                ("bytes_sent", "\(run.bytesSent)"), ("cpu_seconds_per_mb", format(run.cpuSecondsPerMB)),
                ("retries", "\(run.retries)"),
            ])
        } else {
            print(
                "DFU \(run.imageBytes) bytes through the stand-in: \(kB(run.bytesPerSecond)) in "
                    + "\(format(run.transfer.seconds)) s; CPU \(format(run.cpuSeconds)) s, "
                    + "\(format(run.cpuSecondsPerMB)) s/MB; retries \(run.retries)")
        }
    }

    /// The plain client through the stand-in, after `updater` sent the same image.
    func hostPlainClient(_ plain: PlainClientRun, updater: LinkUpdateRun) {
        let rate = Double(updater.imageBytes) / plain.transfer.seconds
        let cpuRatio = updater.cpuSecondsPerMB / plain.cpuSecondsPerMB
        if json {
            emit([
                ("benchmark", "\"host_plain_client\""), ("image_bytes", "\(updater.imageBytes)"),
                ("transfer_seconds", format(plain.transfer.seconds)), ("bytes_per_second", format(rate)),
                ("cpu_seconds", format(plain.cpuSeconds)),
                ("cpu_seconds_per_mb", format(plain.cpuSecondsPerMB)),
                ("updater_cpu_over_plain_client", format(cpuRatio)),
            ])
        } else {
            print(
                "plain client \(updater.imageBytes) bytes through the stand-in: \(kB(rate)); CPU "
                    + "\(format(plain.cpuSeconds)) s, \(format(plain.cpuSecondsPerMB)) s/MB; updater's CPU "
                    + "over the plain client's \(format(cpuRatio))")
        }
    }

    func plainClient(_ transfer: Duration, imageBytes: Int, updater: Duration) {
        let rate = Double(imageBytes) / transfer.seconds
        if json {
            emit([
                ("benchmark", "\"link_plain_client\""), ("image_bytes", "\(imageBytes)"),
                ("transfer_seconds", format(transfer.seconds)), ("bytes_per_second", format(rate)),
                ("updater_over_plain_client", format(transfer / updater)),
            ])
        } else {
            print(
                "plain client \(imageBytes) bytes: \(kB(rate)) in \(format(transfer.seconds)) s; "
                    + "updater over plain client \(format(transfer / updater))")
        }
    }

    /// Every client and write path sent an image of `imageBytes` once, untimed.
    func warmUp(imageBytes: Int) {
        if json {
            emit([("benchmark", "\"link_warm_up\""), ("image_bytes", "\(imageBytes)")])
        } else {
            print("warm-up: each client and write path sent \(imageBytes) bytes once, untimed")
        }
    }

    /// The median of `count` values of the ratio `name` (e.g. `acquire_write/protocol_bound`).
    func median(_ name: String, imageBytes: Int, of count: Int, _ value: Double) {
        if json {
            emit([
                ("median", "\"\(name)\""), ("image_bytes", "\(imageBytes)"), ("of", "\(count)"),
                ("value", format(value)),
            ])
        } else {
            print("median of \(count), \(name), \(imageBytes) bytes: \(format(value))")
        }
    }

    func emit(_ fields: [(String, String)]) {
        print("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
    }

    func kB(_ bytesPerSecond: Double) -> String { "\(format(bytesPerSecond / 1000)) kB/s" }

    func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
