import ArgumentParser

@main
struct DFUUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dfu-update",
        abstract: "Update the firmware of Nordic nRF5 devices over Bluetooth LE, through BlueZ.",
        discussion: """
            Reads Nordic DFU packages (.zip made by nrfutil, or a bare .bin/.hex with an optional \
            .dat), checks them, and sends them with the Legacy (SDK <= 11) or Secure (SDK >= 12) \
            DFU protocol. Every command takes --json for machine-readable output; see \
            docs/cli-contract.md.

            Examples:
              dfu-update inspect Firmware/secure_app.zip
              dfu-update scan --timeout 5
              dfu-update info --device C0:DE:00:00:00:10
              dfu-update flash Firmware/secure_app.zip --device C0:DE:00:00:00:10
              dfu-update flash Firmware/secure_app.zip --simulate secure-app
            """,
        subcommands: [
            InspectCommand.self, ScanCommand.self, InfoCommand.self, FlashCommand.self, FleetCommand.self,
        ])
}
