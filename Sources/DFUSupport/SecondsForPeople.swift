import Foundation

extension Double {
    /// These seconds as a person reads them in a message: whole seconds from 10 s, tenths from
    /// 1 s, milliseconds with three significant digits below, without trailing zeros ("30 s",
    /// "2.5 s", "250 ms", "20.3 ms"; never "29.95693896 s"). Machine output keeps the full value.
    package var secondsForPeople: String {
        guard isFinite else { return "\(self) s" }
        if self != 0, abs(self) < 1 {
            let milliseconds = self * 1000
            let decimals = abs(milliseconds) >= 100 ? 0 : abs(milliseconds) >= 10 ? 1 : 2
            return Self.trimmed(String(format: "%.\(decimals)f", milliseconds)) + " ms"
        }
        let decimals = abs(self) >= 10 ? 0 : 1
        return Self.trimmed(String(format: "%.\(decimals)f", self)) + " s"
    }

    /// `text` without the trailing zeros of its fraction.
    private static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var text = text
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

extension Duration {
    /// This duration as a person reads it in a message (see `Double.secondsForPeople`).
    package var secondsForPeople: String { seconds.secondsForPeople }
}
