import ArgumentParser
import DFUSupport
import SimulatorCommandLine

@main
struct DFUUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dfu-update",
        abstract: "Update the firmware of Nordic devices over Bluetooth LE, through BlueZ.",
        discussion: """
            Reads Nordic DFU packages (.zip made by nrfutil, or a bare .bin/.hex with an optional \
            .dat), checks them, and sends them with the Legacy (SDK <= 11) or Secure (SDK >= 12) \
            DFU protocol; reads MCUboot images and nRF Connect SDK dfu_application.zip and \
            uploads them over SMP (MCUmgr). Every command takes --json for machine-readable output; the output, \
            exit codes and error classes are a contract: docs/cli-contract.md.

            Examples:
              dfu-update inspect Firmware/secure_app.zip
              dfu-update adapters
              dfu-update scan --timeout 5 --dfu-only
              dfu-update info --device C0:DE:00:00:00:10
              dfu-update flash Firmware/secure_app.zip --device C0:DE:00:00:00:10
              dfu-update flash Firmware/smp_app_1.1.0.bin --simulate smp-app
              dfu-update flash Firmware/secure_app.zip --simulate secure-app
            """,
        version: BuildInfo.description,
        subcommands: [
            InspectCommand.self, AdaptersCommand.self, ScanCommand.self, InfoCommand.self, FlashCommand.self,
            FleetCommand.self, RolloutCommands.self, GatewayCommand.self,
        ])

    /// Parses, bootstraps logging, runs, and reports every failure of every command one way
    /// (docs/cli-contract.md, "Errors"), usage errors included.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Known before parsing, so that a usage error can be reported as JSON too.
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            if let problem = CommandWord.problem(in: arguments, root: Self.self) {
                throw CommandFailure(usage: problem + "; see --help")
            }
            var command = try parseAsRoot(arguments)
            (command as? any ContractCommand)?.logging.bootstrap()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            reportAndExit(error, json: json)
        }
    }

    private static func reportAndExit(_ error: any Error, json: Bool) -> Never {
        // An exit code alone: the command has reported already (flash's result event).
        if let code = error as? ExitCode { exit(withError: code) }
        if let failure = CommandFailure(error) {
            failure.print(json: json)
            exit(withError: failure.exitCode)
        }
        // one line (one object with --json), as every other failure: not ArgumentParser's block
        if let line = usageLine(for: error) {
            CommandFailure(usage: line).print(json: json)
            exit(withError: ExitCode.usage)
        }
        exit(withError: error)
    }
}
