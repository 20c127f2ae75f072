/// What a simulated nRF5340 with one image pair leaves in image 0's secondary slot once MCUboot
/// has handed a network core image to the network core (sdk-mcuboot `loader.c`, the PCD branch;
/// nordic-devices-current.md §3.1, §7.6).
public enum OnePairNetworkCore: Hashable, Sendable {
    /// nRF Connect SDK 3.4.1 and later: MCUboot erases the secondary slot after the copy.
    case erasesImage
    /// Older releases in a swap mode: only the slot's trailer is erased, so the image stays
    /// listed with no flags.
    case keepsImage
    /// A fault: MCUboot does not copy the image and leaves it marked in the slot, the
    /// application running as before.
    case skipsCopy

    /// The network core's flash, where its image's reset vector points (nRF5340: 0x0100_0000,
    /// 256 KiB; sdk-mcuboot compares it with `PM_CPUNET_B0N_ADDRESS` … its size).
    public static let flash: Range<UInt32> = 0x0100_0000..<0x0104_0000

    /// Whether `bytes`, an MCUboot image, is built for the network core: the second word of its
    /// vector table, right after the header, is its reset vector.
    static func isNetworkCoreImage(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12 else { return false }
        let headerSize = Int(bytes[8]) | Int(bytes[9]) << 8
        let at = headerSize + 4
        guard bytes.count >= at + 4 else { return false }
        let vector = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
        return flash.contains(vector)
    }
}
