import Foundation

/// A measured value as every benchmark prints it in its JSON lines: three decimals.
func figure(_ value: Double) -> String { String(format: "%.3f", value) }
