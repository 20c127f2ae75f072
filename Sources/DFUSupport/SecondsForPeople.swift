import Foundation

extension Double {
    /// These seconds as a person reads them in a message: whole seconds from 10 s, tenths from
    /// 1 s, hundredths below, without trailing zeros ("30 s", "2.5 s", "0.25 s"; never
    /// "29.95693896 s"). Machine output keeps the full value.
    package var secondsForPeople: String {
        guard isFinite else { return "\(self) s" }
        let decimals = abs(self) >= 10 ? 0 : abs(self) >= 1 ? 1 : 2
        var text = String(format: "%.\(decimals)f", self)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text + " s"
    }
}

extension Duration {
    /// This duration as a person reads it in a message (see `Double.secondsForPeople`).
    package var secondsForPeople: String { seconds.secondsForPeople }
}
