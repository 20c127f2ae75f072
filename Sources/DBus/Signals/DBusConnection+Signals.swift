import CDBus

extension DBusConnection {
    /// Subscribes to the signals `rule` selects: adds the rule on the bus, and removes it when
    /// the consumer stops iterating (or drops the stream). The stream finishes when the
    /// connection ends.
    ///
    /// A well-known `sender` (e.g. `org.bluez`) is matched against its current owner, which is
    /// tracked through `NameOwnerChanged`. `bufferingPolicy` bounds what a slow consumer
    /// accumulates (unbounded by default, so no signal is lost).
    public func signals(
        matching rule: DBusMatchRule,
        bufferingPolicy: AsyncStream<DBusSignal>.Continuation.BufferingPolicy = .unbounded
    ) async throws -> AsyncStream<DBusSignal> {
        try rule.validate()
        let trackedName = rule.sender.flatMap { Self.isWellKnownName($0) ? $0 : nil }
        if let trackedName {
            try await trackOwner(of: trackedName)
        }
        let (stream, continuation) = AsyncStream.makeStream(
            of: DBusSignal.self, bufferingPolicy: bufferingPolicy)
        guard let id = router.add(rule, continuation) else {
            if let trackedName { untrackOwner(of: trackedName) }
            throw DBusError.disconnected("the D-Bus connection is closed")
        }
        let router = self.router
        let busSend = BusSender(loop: loop)
        continuation.onTermination = { _ in
            router.remove(id)
            busSend.fireAndForget("RemoveMatch", [.string(rule.ruleString)])
            if let trackedName, router.unwatchOwner(of: trackedName) {
                busSend.fireAndForget("RemoveMatch", [.string(Self.ownerRule(trackedName).ruleString)])
            }
        }
        do {
            _ = try await callBus("AddMatch", [.string(rule.ruleString)])
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    private func trackOwner(of name: String) async throws {
        let (first, version) = router.watchOwner(of: name)
        do {
            if first {
                _ = try await callBus("AddMatch", [.string(Self.ownerRule(name).ruleString)])
            }
            let owner = try await callBus("GetNameOwner", [.string(name)]).first?.stringValue
            router.setOwner(owner, of: name, ifStillAt: version)
        } catch let error as DBusError where error.name == DBusError.Name.nameHasNoOwner {
            router.setOwner(nil, of: name, ifStillAt: version)
        } catch {
            untrackOwner(of: name)
            throw error
        }
    }

    private func untrackOwner(of name: String) {
        if router.unwatchOwner(of: name) {
            BusSender(loop: loop).fireAndForget("RemoveMatch", [.string(Self.ownerRule(name).ruleString)])
        }
    }

    private static func ownerRule(_ name: String) -> DBusMatchRule {
        DBusMatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus", arguments: [0: name])
    }

    static func isWellKnownName(_ name: String) -> Bool {
        !name.hasPrefix(":") && name != "org.freedesktop.DBus"
    }

    /// Calls a method of the bus itself (`org.freedesktop.DBus`).
    func callBus(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }
}

/// Sends bus-driver calls whose answers nobody awaits (used where no connection reference
/// may be kept, e.g. in stream termination handlers).
struct BusSender: Sendable {
    let loop: EventLoop

    func fireAndForget(_ member: String, _ arguments: [DBusValue]) {
        guard
            let message = try? Message.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: member, arguments: arguments)
        else { return }
        dbus_message_set_no_reply(message.raw, 1)
        loop.enqueue { connection in
            if let connection {
                dbus_connection_send(connection, message.raw, nil)
            }
        }
    }
}
