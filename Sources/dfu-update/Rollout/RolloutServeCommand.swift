import ArgumentParser
import DFURollout
import DFUSupport
import Foundation
import Logging
import MetricsEndpoint
import RolloutPage

/// `dfu-update rollout serve`: the store's rollouts as web pages (docs/rollout-page.md).
struct RolloutServeCommand: ContractCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store's rollouts as web pages: progress, gateways, failures, throughput, live.",
        discussion: """
            Open the address it prints in a browser. The list of rollouts leads to each one's \
            page: its devices by state and by gateway, each failure with its error and what to \
            try, the devices filtered by state, gateway or error class (100 a page), and \
            throughput since the server started, kept up to date while the page is open (and \
            without JavaScript by reloading itself). Nothing is loaded from elsewhere.

            The page is read-only unless --operator-token-file names a file (only its owner may \
            read it) holding the operator token: whoever types that token into the page may \
            pause, resume and cancel. It listens on loopback unless --listen says otherwise, and \
            warns when it does not; in front of other people, put it behind a TLS proxy. SIGTERM \
            or SIGINT stops it once its open connections are done.

            Examples:
              dfu-update rollout serve
              dfu-update rollout serve --store postgres://viewer@db/fleet --listen 127.0.0.1:9000
              openssl rand -hex 32 > token && chmod 600 token
              dfu-update rollout serve --operator-token-file token
            """)

    @OptionGroup var store: StoreOptions

    @Option(
        help: ArgumentHelp(
            "Where to listen, HOST:PORT ([::1]:PORT for IPv6; port 0: any free port).", valueName: "host:port"
        ))
    var listen = "127.0.0.1:8080"

    @Option(
        help: ArgumentHelp(
            "A file only its owner may read, holding the operator token that allows pause, resume and cancel.",
            valueName: "path"))
    var operatorTokenFile: String?

    @Flag(help: "Print the address as one JSON line when listening (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        guard let address = ListenAddress(listen) else {
            throw CommandFailure(
                usage: "--listen \(listen) is not HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:8080")
        }
        let token: OperatorToken?
        do {
            token = try operatorTokenFile.map(OperatorToken.init(contentsOf:))
        } catch let error as OperatorTokenError {
            throw CommandFailure(usage: "--operator-token-file: \(error.description)")
        }
        let location = try store.location()
        try await withStore(store) { rolloutStore in
            // a store that cannot answer fails here, as `rollout list` would, not on the first page
            _ = try await rolloutStore.rollouts()
            let server = RolloutPageServer(store: rolloutStore, storeName: location.description, token: token)
            let json = json
            let listening = Locked(false)
            let app = server.application(listen: address, logger: Logger(label: "dfu-update.rollout-serve")) {
                port in
                listening.withLock { $0 = true }
                // once it listens: an address it cannot listen on gets its error alone
                if !address.isLoopback {
                    Output.error(
                        "warning: listening on \(address), which other machines may reach; anyone who reaches it sees every rollout"
                    )
                }
                let url = "http://\(ListenAddress("\(address.host):\(port)") ?? address)/"
                if json {
                    Output.line(.object([("event", .string("listening")), ("url", .string(url))]))
                } else {
                    Output.line("serving the rollouts of \(location) at \(url)")
                }
            }
            do {
                try await app.runService()
            } catch let error where !listening.withLock({ $0 }) {
                // it never listened: the address is taken or not this machine's, not a store failure
                throw CommandFailure(
                    errorClass: "listen_unavailable",
                    message: "--listen \(address): cannot listen there: \(ListenFailure.reason(error))",
                    exitCode: .usage)
            }
        }
    }
}
