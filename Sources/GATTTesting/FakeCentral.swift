import GATT
import Synchronization

/// A central that answers as the central it wraps, except where a hook says otherwise: the
/// one fake the tests build their faulty, forgetful or vanishing devices from.
///
/// Each hook is given the wrapped central (or the link it opened) to answer from. The links
/// the wrapped central opened are kept, to check that none is left up.
public final class FakeCentral: GATTCentral {
    /// Answers a scan in place of the wrapped central.
    public typealias Scan =
        @Sendable (_ filter: ScanFilter, _ timeout: Duration, _ central: any GATTCentral) ->
        AsyncThrowingStream<Advertisement, any Error>
    /// Connects to the device, within the timeout, in place of the wrapped central (given last,
    /// to connect through or not).
    public typealias Connect =
        @Sendable (DeviceIdentifier, Duration, any GATTCentral) async throws -> any GATTPeripheral
    /// Changes the link the central opened, given with its number (the first is 1).
    public typealias Link =
        @Sendable (_ link: any GATTPeripheral, _ number: Int) async throws -> any GATTPeripheral

    private let central: any GATTCentral
    private let scanHook: Scan?
    private let connectHook: Connect?
    private let linkHook: Link?
    private let opened = Mutex<[any GATTPeripheral]>([])

    /// Wraps `central`; a nil hook leaves that part of it as it is.
    public init(_ central: any GATTCentral, scan: Scan? = nil, connect: Connect? = nil, link: Link? = nil) {
        self.central = central
        scanHook = scan
        connectHook = connect
        linkHook = link
    }

    public var linkTime: any LinkTime { central.linkTime }
    public var taskExecutor: (any TaskExecutor)? { central.taskExecutor }

    /// How many links were opened.
    public var connections: Int { opened.withLock { $0.count } }

    /// Whether any link opened is still up.
    public var anyLinkUp: Bool {
        get async {
            for link in opened.withLock({ $0 }) where await link.isConnected { return true }
            return false
        }
    }

    public func scan(_ filter: ScanFilter, timeout: Duration) -> AsyncThrowingStream<Advertisement, any Error>
    {
        scanHook?(filter, timeout, central) ?? central.scan(filter, timeout: timeout)
    }

    public func connect(_ device: DeviceIdentifier, timeout: Duration) async throws -> any GATTPeripheral {
        let link: any GATTPeripheral
        if let connectHook {
            link = try await connectHook(device, timeout, central)
        } else {
            link = try await central.connect(device, timeout: timeout)
        }
        let number = opened.withLock {
            $0.append(link)
            return $0.count
        }
        guard let linkHook else { return link }
        return try await linkHook(link, number)
    }
}
