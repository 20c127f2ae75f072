/// A DFU protocol: what a package is made for, what a device speaks, what a transfer runs. The
/// one type the package reader, the engine, `info`, the fleet and the simulator name it with.
/// Raw values are the names docs/cli-contract.md uses.
///
/// Nordic packages are made for `secure` or `legacy`; MCUboot images go over `smp`.
public enum DFUProtocol: String, Sendable, Hashable, CaseIterable {
    /// Nordic's Secure DFU: nRF5 SDK 12 and later (service 0xFE59, protobuf init packets).
    case secure
    /// Nordic's Legacy DFU: nRF5 SDK 11 and earlier (packed-struct init packets).
    case legacy
    /// MCUmgr's image management over SMP: nRF Connect SDK and Zephyr devices with MCUboot.
    case smp
}
