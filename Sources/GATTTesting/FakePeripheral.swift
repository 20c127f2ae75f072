import GATT

/// A link that answers as the link it wraps, except where a hook says otherwise.
public final class FakePeripheral: GATTPeripheral {
    /// Lists the services in place of the wrapped link.
    public typealias Services = @Sendable (_ link: any GATTPeripheral) async throws -> [GATTService]
    /// Drops the link (and the kept table) in place of the wrapped link.
    public typealias DiscardCachedServices = @Sendable (_ link: any GATTPeripheral) async -> Void
    /// Waits for a Service Changed in place of the wrapped link.
    public typealias ServicesAfterChange =
        @Sendable (
            _ timeout: Duration, _ isWanted: @escaping @Sendable ([GATTService]) -> Bool,
            _ link: any GATTPeripheral
        ) async throws -> [GATTService]?

    private let link: any GATTPeripheral
    private let servicesHook: Services?
    private let discardHook: DiscardCachedServices?
    private let changeHook: ServicesAfterChange?

    /// Wraps `link`; a nil hook leaves that part of it as it is.
    public init(
        _ link: any GATTPeripheral, services: Services? = nil,
        disconnectDiscardingCachedServices: DiscardCachedServices? = nil,
        servicesAfterChange: ServicesAfterChange? = nil
    ) {
        self.link = link
        servicesHook = services
        discardHook = disconnectDiscardingCachedServices
        changeHook = servicesAfterChange
    }

    /// Wraps `link` and lists each of its characteristics as `change` makes it.
    public convenience init(
        _ link: any GATTPeripheral,
        changingEach change: @escaping @Sendable (any GATTCharacteristic) -> any GATTCharacteristic
    ) {
        self.init(
            link,
            services: { link in
                try await link.services().map {
                    GATTService(uuid: $0.uuid, characteristics: $0.characteristics.map(change))
                }
            })
    }

    public var address: BluetoothAddress { link.address }
    public var name: String? { link.name }
    public var mtu: Int { get async { await link.mtu } }
    public var isConnected: Bool { get async { await link.isConnected } }

    public func services() async throws -> [GATTService] {
        guard let servicesHook else { return try await link.services() }
        return try await servicesHook(link)
    }

    public func disconnect() async { await link.disconnect() }

    public func waitForDisconnection(timeout: Duration) async throws {
        try await link.waitForDisconnection(timeout: timeout)
    }

    public func disconnectDiscardingCachedServices() async {
        guard let discardHook else { return await link.disconnectDiscardingCachedServices() }
        await discardHook(link)
    }

    public func servicesAfterChange(
        timeout: Duration, until isWanted: @escaping @Sendable ([GATTService]) -> Bool
    ) async throws -> [GATTService]? {
        guard let changeHook else {
            return try await link.servicesAfterChange(timeout: timeout, until: isWanted)
        }
        return try await changeHook(timeout, isWanted, link)
    }
}
