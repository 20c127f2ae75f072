import ArgumentParser

/// Options whose checks (`checkOptions()`, which ArgumentParser runs as their `validate()`) can
/// wait until the whole command line is parsed. ArgumentParser validates each command and option
/// group as it decodes them and looks for options it does not know only after that, so a check
/// that finds a required option missing would hide the typo that left it missing (`--devcie`).
/// `runReporting` therefore parses once with these checks deferred, which reports an unknown
/// option first, and then again with them.
public protocol OptionChecks: ParsableArguments {
    /// Throws a `ValidationError` for options that are missing or do not go together.
    func checkOptions() throws
}

extension OptionChecks {
    /// ArgumentParser's hook, running `checkOptions()` unless a parse defers it.
    public func validate() throws {
        if !OptionCheckPass.isDeferred { try checkOptions() }
    }
}

/// Whether the parse under way defers every `OptionChecks` check.
enum OptionCheckPass {
    @TaskLocal static var isDeferred = false
}
