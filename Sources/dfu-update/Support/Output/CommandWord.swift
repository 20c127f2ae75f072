import ArgumentParser

/// A misspelt command (`dfu-update flsh x.zip --json`): ArgumentParser reports the first option
/// the root does not know (`Unknown option '--json'`) or the word as an unexpected argument,
/// neither of which says that the command is the mistake.
enum CommandWord {
    /// Why `arguments` name no command of `root`, naming the ones it has; nil when the words
    /// before the first option are commands (or `help`), which the parser then reads.
    static func problem(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root.configuration.commandName ?? "dfu-update"]
        for word in arguments {
            let subcommands = command.configuration.subcommands
            // options, and the arguments of a command without subcommands, are the parser's
            guard !word.hasPrefix("-"), !subcommands.isEmpty, word != "help" else { return nil }
            guard let next = subcommands.first(where: { $0.configuration.commandName == word }) else {
                let names = subcommands.compactMap { $0.configuration.commandName }.joined(separator: ", ")
                return "'\(word)' is not a command of \(path.joined(separator: " ")); use one of \(names)"
            }
            command = next
            path.append(word)
        }
        return nil
    }
}
