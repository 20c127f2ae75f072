extension DBusConnection {
    /// How the bus answered a name request.
    public enum NameRequestResult: UInt32, Sendable {
        case primaryOwner = 1
        case inQueue = 2
        case exists = 3
        case alreadyOwner = 4
    }

    /// Asks the bus for a well-known name, by default without queueing and without replacing an
    /// owner. Returns what the bus did; only `primaryOwner` and `alreadyOwner` mean we own it.
    @discardableResult
    public func requestName(_ name: String, allowReplacement: Bool = false, replaceExisting: Bool = false)
        async throws -> NameRequestResult
    {
        try DBusNames.validateBusName(name)
        var flags: UInt32 = 0x4  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        if allowReplacement { flags |= 0x1 }
        if replaceExisting { flags |= 0x2 }
        let reply = try await callBus("RequestName", [.string(name), .uint32(flags)])
        guard case .uint32(let code)? = reply.first, let result = NameRequestResult(rawValue: code) else {
            throw DBusError.error(
                name: DBusError.Name.failed, message: "unexpected RequestName reply \(reply)")
        }
        return result
    }

    /// Gives up a well-known name. Returns false when we did not own it.
    @discardableResult
    public func releaseName(_ name: String) async throws -> Bool {
        try DBusNames.validateBusName(name)
        let reply = try await callBus("ReleaseName", [.string(name)])
        return reply.first == .uint32(1)  // DBUS_RELEASE_NAME_REPLY_RELEASED
    }

    /// The unique name owning `name`, or nil when nobody owns it.
    public func nameOwner(_ name: String) async throws -> String? {
        do {
            return try await callBus("GetNameOwner", [.string(name)]).first?.stringValue
        } catch let error as DBusError where error.name == DBusError.Name.nameHasNoOwner {
            return nil
        }
    }
}
