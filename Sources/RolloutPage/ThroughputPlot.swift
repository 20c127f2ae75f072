import Foundation

/// Throughput over time as an inline SVG, drawn here so that the page needs no script or asset:
/// devices that got their result per minute, between each two samples.
enum ThroughputPlot {
    static let width = 640.0
    static let height = 160.0
    static let margin = 36.0

    static func svg(_ samples: [ThroughputRecorder.Sample]) -> String {
        let rates = zip(samples, samples.dropFirst()).map { before, after in
            let seconds = max(after.time.timeIntervalSince(before.time), 0.001)
            return (time: after.time, perMinute: Double(after.done - before.done) * 60 / seconds)
        }
        let open =
            "<svg id=\"throughput\" role=\"img\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "width=\"\(Int(width))\" height=\"\(Int(height))\" xmlns=\"http://www.w3.org/2000/svg\">"
            + "<title>Devices per minute</title>"
        guard let first = samples.first, let last = rates.last else {
            return open
                + "<text x=\"\(margin)\" y=\"\(height / 2)\">Throughput appears after the next update.</text></svg>"
        }
        let span = max(last.time.timeIntervalSince(first.time), 1)
        let top = max(rates.map(\.perMinute).max() ?? 0, 1)
        let plotWidth = width - 2 * margin
        let plotHeight = height - 2 * margin
        let points = rates.map { rate in
            let x = margin + rate.time.timeIntervalSince(first.time) / span * plotWidth
            let y = height - margin - rate.perMinute / top * plotHeight
            return String(format: "%.1f,%.1f", x, y)
        }
        let bottom = height - margin
        return open
            + "<line x1=\"\(margin)\" y1=\"\(bottom)\" x2=\"\(width - margin)\" y2=\"\(bottom)\" stroke=\"#888\"/>"
            + "<line x1=\"\(margin)\" y1=\"\(margin)\" x2=\"\(margin)\" y2=\"\(bottom)\" stroke=\"#888\"/>"
            + "<text x=\"2\" y=\"\(margin)\" font-size=\"11\">\(label(top))/min</text>"
            + "<text x=\"2\" y=\"\(bottom)\" font-size=\"11\">0</text>"
            + "<text x=\"\(margin)\" y=\"\(height - 8)\" font-size=\"11\">\(clock(first.time))</text>"
            + "<text x=\"\(width - margin)\" y=\"\(height - 8)\" font-size=\"11\" text-anchor=\"end\">\(clock(last.time))</text>"
            + "<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
            // a dot at each rate, so that the first one shows before there is a line
            + points.map {
                "<circle r=\"2.5\" fill=\"#1f6feb\" cx=\"\($0.prefix { $0 != "," })\" cy=\"\($0.drop { $0 != "," }.dropFirst())\"/>"
            }.joined()
            + "</svg>"
    }

    private static func label(_ value: Double) -> String {
        value >= 10 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    /// UTC, as the rest of the CLI's times.
    private static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d UTC", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
