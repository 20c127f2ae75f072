/// A protocol a device speaks for firmware updates, of either family: what a package is for,
/// what `info`, the fleet's plan, its metrics and the rollout store name. Raw values are the
/// names docs/cli-contract.md uses; a family maps its own protocols to these in its folder.
public enum DFUProtocol: String, Sendable, Hashable, CaseIterable {
    /// Nordic's Secure DFU: nRF5 SDK 12 and later.
    case secure
    /// Nordic's Legacy DFU: nRF5 SDK 11 and earlier.
    case legacy
    /// MCUmgr's image management over SMP: nRF Connect SDK and Zephyr devices with MCUboot.
    case smp
}
