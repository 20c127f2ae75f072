import ArgumentParser

extension ParsableCommand {
    /// A usage error (exit 64) as one line for the contract's error object or `error:` line,
    /// `…; see --help`: the first line of ArgumentParser's report without its `Error: ` and
    /// final period (not its block of help); nil for an error that is not a usage error.
    /// `dfu-update` and `dfu-sim` report their bad options this one way.
    public static func usageLine(for error: any Error) -> String? {
        guard exitCode(for: error) == .validationFailure else { return nil }
        let text = message(for: error)
        let firstLine = text.split(separator: "\n").first.map(String.init) ?? text
        var line = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine
        if line.hasSuffix(".") { line.removeLast() }
        return line + "; see --help"
    }
}
