/// A method call already sent, whose reply is awaited later (``DBusConnection/startCall``).
public struct DBusPendingCall: Sendable {
    let pending: PendingReply
    let loop: EventLoop

    /// Awaits the reply's arguments. Throws as ``DBusConnection/call`` does; cancelling the
    /// awaiting task abandons the call.
    public func reply() async throws -> [DBusValue] {
        try await pending.reply(on: loop).arguments()
    }
}

extension PendingReply {
    /// Awaits the reply on behalf of the current task; `afterInstall` runs once the task waits
    /// (to start a call that must not be sent for a task already cancelled).
    func reply(on loop: EventLoop, afterInstall: @Sendable () -> Void = {}) async throws -> Message {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard install(continuation) else { return }
                afterInstall()
            }
        } onCancel: {
            if cancel() {
                loop.enqueue { _ in self.abandon() }
            }
        }
    }
}
