/// Nordic's two DFU protocols: what a Nordic package is made for, what a Nordic device speaks,
/// what a transfer runs. Raw values are the names docs/cli-contract.md uses.
public enum NordicDFUProtocol: String, Sendable, Hashable, CaseIterable {
    /// Nordic's Secure DFU: nRF5 SDK 12 and later (service 0xFE59, protobuf init packets).
    case secure
    /// Nordic's Legacy DFU: nRF5 SDK 11 and earlier (packed-struct init packets).
    case legacy
}
