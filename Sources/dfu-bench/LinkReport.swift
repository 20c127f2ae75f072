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
                ("request_round_trip_ms", figure(link.requestRoundTrip.seconds * 1000)),
                ("request_write_response_ms", figure(link.requestWriteResponse.seconds * 1000)),
                ("receipt_round_trip_ms", figure(link.receiptRoundTrip.seconds * 1000)),
                ("raw_bytes_per_second", figure(link.rawBytesPerSecond)),
                ("packet_bytes", "\(link.packetBytes)"), ("object_bytes", "\(link.objectSize)"),
                ("raw_cpu_seconds_per_mb", figure(link.rawCPUSecondsPerMB)),
                ("request_cpu_ms", figure(link.requestCPUSeconds * 1000)),
            ])
        } else {
            print(
                "link (\(measured)): control point round trip \(figure(link.requestRoundTrip.seconds * 1000)) ms "
                    + "(write response \(figure(link.requestWriteResponse.seconds * 1000)) ms), "
                    + "packet receipt round trip \(figure(link.receiptRoundTrip.seconds * 1000)) ms, "
                    + "raw write without response \(kB(link.rawBytesPerSecond)) "
                    + "(\(link.packetBytes)-byte packets, \(link.objectSize)-byte objects), "
                    + "CPU \(figure(link.rawCPUSecondsPerMB)) s/MB streaming, "
                    + "\(figure(link.requestCPUSeconds * 1000)) ms per round trip")
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
                ("transfer_seconds", figure(run.transfer.seconds)),
                ("bytes_per_second", figure(run.bytesPerSecond)),
                ("protocol_bound_bytes_per_second", figure(protocolRate)),
                ("ratio_to_protocol_bound", figure(run.bytesPerSecond / protocolRate)),
                ("device_bound_bytes_per_second", figure(deviceRate)),
                ("ratio_to_device_bound", figure(run.bytesPerSecond / deviceRate)),
                ("cpu_seconds", figure(run.cpuSeconds)), ("bytes_sent", "\(run.bytesSent)"),
                ("cpu_seconds_per_mb", figure(run.cpuSecondsPerMB)), ("retries", "\(run.retries)"),
            ])
        } else {
            print(
                "DFU \(imageBytes) bytes, \(path): \(kB(run.bytesPerSecond)) in "
                    + "\(figure(run.transfer.seconds)) s; protocol bound \(kB(protocolRate)) "
                    + "(ratio \(figure(run.bytesPerSecond / protocolRate))); with dfu-sim's flash "
                    + "\(kB(deviceRate)) (ratio \(figure(run.bytesPerSecond / deviceRate))); "
                    + "CPU \(figure(run.cpuSecondsPerMB)) s/MB; retries \(run.retries)")
        }
    }

    /// An update through `dfu-sim --bluetoothd-stand-in` (`dfu-bench host`): no link to bound it.
    func hostUpdate(_ run: LinkUpdateRun) {
        if json {
            emit([
                ("benchmark", "\"host_dfu\""), ("image_bytes", "\(run.imageBytes)"),
                ("transfer_seconds", figure(run.transfer.seconds)),
                ("bytes_per_second", figure(run.bytesPerSecond)), ("cpu_seconds", figure(run.cpuSeconds)),
                ("bytes_sent", "\(run.bytesSent)"), ("cpu_seconds_per_mb", figure(run.cpuSecondsPerMB)),
                ("retries", "\(run.retries)"),
            ])
        } else {
            print(
                "DFU \(run.imageBytes) bytes through the stand-in: \(kB(run.bytesPerSecond)) in "
                    + "\(figure(run.transfer.seconds)) s; CPU \(figure(run.cpuSeconds)) s, "
                    + "\(figure(run.cpuSecondsPerMB)) s/MB; retries \(run.retries)")
        }
    }

    /// The plain client through the stand-in, after `updater` sent the same image.
    func hostPlainClient(_ plain: PlainClientRun, updater: LinkUpdateRun) {
        let rate = Double(updater.imageBytes) / plain.transfer.seconds
        let cpuRatio = updater.cpuSecondsPerMB / plain.cpuSecondsPerMB
        if json {
            emit([
                ("benchmark", "\"host_plain_client\""), ("image_bytes", "\(updater.imageBytes)"),
                ("transfer_seconds", figure(plain.transfer.seconds)), ("bytes_per_second", figure(rate)),
                ("cpu_seconds", figure(plain.cpuSeconds)),
                ("cpu_seconds_per_mb", figure(plain.cpuSecondsPerMB)),
                ("updater_cpu_over_plain_client", figure(cpuRatio)),
            ])
        } else {
            print(
                "plain client \(updater.imageBytes) bytes through the stand-in: \(kB(rate)); CPU "
                    + "\(figure(plain.cpuSeconds)) s, \(figure(plain.cpuSecondsPerMB)) s/MB; updater's CPU "
                    + "over the plain client's \(figure(cpuRatio))")
        }
    }

    func plainClient(_ transfer: Duration, imageBytes: Int, updater: Duration) {
        let rate = Double(imageBytes) / transfer.seconds
        if json {
            emit([
                ("benchmark", "\"link_plain_client\""), ("image_bytes", "\(imageBytes)"),
                ("transfer_seconds", figure(transfer.seconds)), ("bytes_per_second", figure(rate)),
                ("updater_over_plain_client", figure(transfer / updater)),
            ])
        } else {
            print(
                "plain client \(imageBytes) bytes: \(kB(rate)) in \(figure(transfer.seconds)) s; "
                    + "updater over plain client \(figure(transfer / updater))")
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
                ("value", figure(value)),
            ])
        } else {
            print("median of \(count), \(name), \(imageBytes) bytes: \(figure(value))")
        }
    }

    func emit(_ fields: [(String, String)]) {
        print("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
    }

    func kB(_ bytesPerSecond: Double) -> String { "\(figure(bytesPerSecond / 1000)) kB/s" }
}
