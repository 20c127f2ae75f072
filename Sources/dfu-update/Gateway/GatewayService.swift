import DFUGateway
import DFUSupport
import ServiceLifecycle

/// The gateway agent as a service of swift-service-lifecycle: the group's graceful shutdown
/// (SIGTERM, SIGINT) cancels the agent, which aborts the updates in progress (each device can
/// take its update again) and gives their devices back before `run()` returns.
final class GatewayService: Service, Sendable {
    private struct State {
        var interrupted = false
        var result: Result<Void, any Error>?
    }

    private let agent: GatewayAgent
    private let emit: @Sendable (GatewayEvent) -> Void
    private let state = Locked(State())

    init(agent: GatewayAgent, emit: @escaping @Sendable (GatewayEvent) -> Void) {
        self.agent = agent
        self.emit = emit
    }

    /// Whether a graceful shutdown stopped the agent.
    var interrupted: Bool { state.withLock { $0.interrupted } }
    /// How the agent's run ended, once it did.
    var result: Result<Void, any Error>? { state.withLock { $0.result } }

    func run() async {
        let (agent, emit, state) = (agent, emit, state)
        let running = Task { try await agent.run(emit: emit) }
        let result = await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await running.result
            } onGracefulShutdown: {
                state.withLock { $0.interrupted = true }
                running.cancel()
            }
        } onCancel: {
            running.cancel()
        }
        state.withLock { $0.result = result }
    }
}
