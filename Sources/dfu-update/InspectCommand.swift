import ArgumentParser

/// Placeholder until the package reader lands (issue 2).
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Describe a DFU package.")
}
