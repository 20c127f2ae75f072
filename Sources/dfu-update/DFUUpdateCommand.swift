import ArgumentParser
import CommandLineContract
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
    /// (docs/cli-contract.md, "Errors"), usage errors and unanticipated ones included.
    static func main() async {
        await runReporting(
            check: { arguments in
                if let problem = CommandWord.problem(in: arguments, root: Self.self) {
                    throw CommandFailure(usage: problem + "; see --help")
                }
            },
            started: { ($0 as? any ContractCommand)?.logging.bootstrap() },
            report: report)
    }

    /// Prints the contract's error line (object with `--json`) and gives its exit code: one
    /// line, as every other failure, not ArgumentParser's block of help or its "Error: …".
    private static func report(_ unreported: UnreportedError) -> ExitCode {
        let failure = failure(for: unreported)
        failure.print(json: unreported.json)
        return failure.exitCode
    }

    /// The contract's failure for an error no command reported itself: its own class, a usage
    /// error, or `internal` for one nothing anticipated.
    static func failure(for unreported: UnreportedError) -> CommandFailure {
        CommandFailure(unreported.error) ?? unreported.usageLine.map(CommandFailure.init(usage:))
            ?? CommandFailure(unanticipated: unreported.error)
    }
}
