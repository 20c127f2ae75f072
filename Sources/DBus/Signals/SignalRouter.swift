import CDBus
import Synchronization

/// Routes received signals to the streams whose match rules they satisfy, and keeps the owners
/// of the well-known names those rules mention up to date from `NameOwnerChanged`.
final class SignalRouter: Sendable {
    private struct Subscription {
        var rule: DBusMatchRule
        var continuation: AsyncStream<DBusSignal>.Continuation
    }

    private struct State {
        var subscriptions: [UInt64: Subscription] = [:]
        var nextID: UInt64 = 0
        var finished = false
        /// Well-known name → current unique owner, for names some rule uses as sender.
        var owners: [String: String] = [:]
        /// How many subscriptions use each well-known name as sender.
        var ownerWatchers: [String: Int] = [:]
        /// Bumped on every NameOwnerChanged for the name, to drop stale GetNameOwner answers.
        var ownerVersions: [String: UInt64] = [:]
    }

    private let state = Mutex(State())

    /// Adds a subscription; nil when the connection already ended.
    func add(_ rule: DBusMatchRule, _ continuation: AsyncStream<DBusSignal>.Continuation) -> UInt64? {
        state.withLock { state in
            if state.finished { return nil }
            state.nextID += 1
            state.subscriptions[state.nextID] = Subscription(rule: rule, continuation: continuation)
            return state.nextID
        }
    }

    func remove(_ id: UInt64) {
        state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
    }

    /// Starts tracking the owner of `name`. Returns true for the first watcher (the caller then
    /// adds the bus match rule for its NameOwnerChanged) and the version to pass to ``setOwner``.
    func watchOwner(of name: String) -> (first: Bool, version: UInt64) {
        state.withLock { state in
            state.ownerWatchers[name, default: 0] += 1
            return (state.ownerWatchers[name] == 1, state.ownerVersions[name, default: 0])
        }
    }

    /// Stops tracking; returns true when this was the last watcher.
    func unwatchOwner(of name: String) -> Bool {
        state.withLock { state in
            let remaining = state.ownerWatchers[name, default: 1] - 1
            if remaining > 0 {
                state.ownerWatchers[name] = remaining
                return false
            }
            state.ownerWatchers[name] = nil
            state.owners[name] = nil
            return true
        }
    }

    /// Records a GetNameOwner answer unless a NameOwnerChanged arrived since `version`.
    func setOwner(_ owner: String?, of name: String, ifStillAt version: UInt64) {
        state.withLock { state in
            guard state.ownerVersions[name, default: 0] == version, state.ownerWatchers[name] != nil else {
                return
            }
            state.owners[name] = owner
        }
    }

    /// Loop thread: hands a received signal to every matching subscription.
    func deliver(_ message: Message) {
        guard let path = message.path, let interface = message.interface, let member = message.member else {
            return
        }
        let header = SignalHeader(
            sender: message.sender, destination: message.destination, path: path, interface: interface,
            member: member)
        var arguments: [DBusValue]?
        func loadArguments() -> [DBusValue] {
            if let arguments { return arguments }
            let loaded = message.arguments()
            arguments = loaded
            return loaded
        }
        if header.sender == "org.freedesktop.DBus" && interface == "org.freedesktop.DBus"
            && member == "NameOwnerChanged"
        {
            let values = loadArguments()
            if values.count == 3, case .string(let name) = values[0], case .string(let newOwner) = values[2] {
                state.withLock { state in
                    guard state.ownerWatchers[name] != nil else { return }
                    state.ownerVersions[name, default: 0] += 1
                    state.owners[name] = newOwner.isEmpty ? nil : newOwner
                }
            }
        }
        let (candidates, owners) = state.withLock { state in
            (Array(state.subscriptions.values), state.owners)
        }
        for subscription in candidates {
            let rule = subscription.rule
            let headerMatches = rule.matchesHeader(header) { sender in
                sender == header.sender || (owners[sender] != nil && owners[sender] == header.sender)
            }
            guard headerMatches else { continue }
            let values = loadArguments()
            guard !rule.needsArguments || rule.matchesArguments(values) else { continue }
            subscription.continuation.yield(
                DBusSignal(
                    sender: header.sender, path: path, interface: interface, member: member, arguments: values
                ))
        }
    }

    /// Ends every stream; later subscriptions are refused.
    func finishAll() {
        let subscriptions = state.withLock { state in
            state.finished = true
            defer { state.subscriptions.removeAll() }
            return Array(state.subscriptions.values)
        }
        for subscription in subscriptions {
            subscription.continuation.finish()
        }
    }
}
