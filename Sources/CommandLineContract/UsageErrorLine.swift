import ArgumentParser

extension ParsableArguments {
    /// A usage error (exit 64) as one line for the contract's error object or `error:` line,
    /// `…; see --help` (not ArgumentParser's block of help); nil for an error that is not a
    /// usage error. `dfu-update` and `dfu-sim` report their bad options this one way.
    public static func usageLine(for error: any Error) -> String? {
        guard exitCode(for: error) == .validationFailure else { return nil }
        return messageLine(for: error) + "; see --help"
    }

    /// ArgumentParser's report of `error` on one line: its first line without its `Error: ` and
    /// final period, with the values it lists under it when it ends asking for one of them.
    public static func messageLine(for error: any Error) -> String {
        let lines = message(for: error).split(separator: "\n").map(String.init)
        let firstLine = lines.first ?? ""
        var line = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine
        if line.hasSuffix(":") {
            // "Please provide one of the following:" and the values, one a line as "  - value"
            let values = lines.dropFirst().prefix { $0.hasPrefix("  - ") }.map { $0.dropFirst(4) }
            line += " " + values.joined(separator: ", ")
        }
        if line.hasSuffix(".") { line.removeLast() }
        // "Unknown option '--devcie'. Did you mean '--device'?" as one clause, the way the
        // inventory's checks suggest a near name, before "; see --help"
        if line.hasSuffix("?"), let suggestion = line.firstRange(of: ". Did you mean ") {
            line = line[..<suggestion.lowerBound] + " (did you mean " + line[suggestion.upperBound...] + ")"
        }
        return line
    }
}
