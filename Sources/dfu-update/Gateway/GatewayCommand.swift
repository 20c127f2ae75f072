import ArgumentParser
import CommandLineContract
import DFUFleet
import DFUGateway
import DFURollout
import DFUSupport
import Foundation
import Logging
import ServiceLifecycle
import SimulatorCommandLine

/// `dfu-update gateway`: the agent that updates a store's rollouts on the devices this machine
/// reaches (docs/gateway.md).
struct GatewayCommand: ContractCommand, OptionChecks {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run as a gateway: update the devices in reach of every rollout in a store.",
        discussion: """
            Scans, claims the devices of active rollouts that this gateway can reach, updates \
            them as `fleet` does and reports each result to the store; renews its leases while it \
            works, and takes up new or resumed rollouts without a restart. A device is updated \
            once per rollout however many gateways see it. Ctrl-C or SIGTERM aborts the updates \
            in progress (each device can take its update again) and gives their devices back. \
            Devices that ask for security are paired as fleet pairs them, each passkey source \
            resolved on this machine (docs/pairing.md). \
            docs/gateway.md describes the agent; the .deb installs a systemd unit that runs it, \
            /usr/lib/systemd/system/dfu-update-gateway.service (not enabled).
            Examples:
              dfu-update gateway --store postgres://gw_hall_a@db/fleet --name hall-a --adapter hci0
              dfu-update gateway --store rollouts.sqlite --simulated-devices sim.json --exit-when-idle
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "This gateway's name in the store (default: the host name).")
    var name: String?

    @Option(
        name: .customLong("adapter"),
        help: "A Bluetooth adapter to use (hciN or its address); repeat for several (default: the first one)."
    )
    var adapters: [String] = []

    @Option(
        help: ArgumentHelp(
            "The devices this gateway reaches as in-process simulated devices: an inventory whose entries all have a \"simulate\" object.",
            valueName: "file"))
    var simulatedDevices: String?

    @Flag(help: "Exit 0 once no rollout has work this gateway can do (a paused rollout still has).")
    var exitWhenIdle = false

    @Option(
        parsing: .unconditional, help: "The most devices this gateway updates at once, 1…1000 (default: 4).",
        transform: { try Ranged.integer($0, in: 1...1000) })
    var concurrency = 4

    @Option(
        parsing: .unconditional,
        help:
            "Seconds a claim holds a device unrenewed, 1…3600 (default: 30); renewed every third of it.",
        // shorter, a claim runs out before the update starts: the device is claimed again and again
        transform: { try Seconds.parse($0, atLeast: 1) })
    var lease = Seconds(30)

    @Option(
        parsing: .unconditional,
        help: "Seconds between looks for new work, 0.01…3600 (default: 2).",
        transform: Seconds.parse)
    var poll = Seconds(2)

    @Flag(help: "Print JSON Lines events (docs/cli-contract.md).")
    var json = false

    @OptionGroup var metrics: MetricsOptions

    @OptionGroup var device: FleetDeviceOptions

    @OptionGroup var logging: LoggingOptions

    func checkOptions() throws {
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--name: a gateway's name cannot be empty")
        }
    }

    func run() async throws {
        try store.requireStore()
        // before the agent is made: it takes the metrics backend bootstrapped by then
        let metricsServer = try await metrics.start()
        // The store before Bluetooth: a mistyped store is the likelier mistake, and it is told
        // at once, where Bluetooth would be told first and hide it.
        let rolloutStore: any RolloutStore
        do {
            rolloutStore = try await store.open()
        } catch RolloutStoreError.storage(let failure) where !failure.isOutage {
            throw Self.refused(failure)
        }
        let setup: GatewaySetup
        do {
            setup = try await GatewaySetup(self)
        } catch {
            try? await rolloutStore.close()
            throw error
        }
        let reporter = GatewayReporter(json: json, simulated: setup.simulated)
        var configuration = GatewayConfiguration(name: name ?? ProcessInfo.processInfo.hostName)
        configuration.concurrency = concurrency
        configuration.lease = lease.duration
        configuration.pollInterval = poll.duration
        configuration.exitWhenIdle = exitWhenIdle
        configuration.fleet = device.fleetOptions
        let agent = GatewayAgent(
            store: rolloutStore, configuration: configuration, reach: setup.reach,
            describe: { FleetReportFile.deviceJSON($0) })
        let nameInUse = Locked<Date?>(nil)
        let gateway = GatewayService(agent: agent) { event in
            if case .nameInUse(let lastSeen) = event { nameInUse.withLock { $0 = lastSeen } }
            reporter.observe(event)
        }
        // The metrics server first: a group stops its services last to first, so the gateway's
        // stop (devices given back) is still scraped.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let metricsServer { services.append(.init(service: metricsServer)) }
        services.append(
            .init(
                service: gateway, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "dfu-update.gateway")))
        try await group.run()
        try? await rolloutStore.close()
        if let lastSeen = nameInUse.withLock({ $0 }) {
            throw CommandFailure(RolloutStoreError.gatewayNameInUse(configuration.name, lastSeen: lastSeen))
        }
        if gateway.interrupted { throw ExitCode.interrupted }
        do {
            try gateway.result?.get()
        } catch RolloutStoreError.storage(let failure) where !failure.isOutage {
            throw Self.refused(failure)
        }
    }

    /// The store refuses this gateway (a password, a grant, the schema, TLS): waiting, or a
    /// restart, does not cure it, so the exit says the configuration must change. A file that
    /// is no store is a mistaken `--store`, as for every rollout command.
    static func refused(_ failure: StoreFailure) -> CommandFailure {
        if failure.kind == .notAStore { return CommandFailure(RolloutStoreError.storage(failure)) }
        return CommandFailure(
            errorClass: "store_error", message: RolloutStoreError.storage(failure).description,
            exitCode: .configuration)
    }
}
