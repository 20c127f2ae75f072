/// The nRF52's flash at its slowest (nRF52832/nRF52840 product specifications: t_ERASEPAGE and
/// t_WRITE, maximum), and what it makes an nRF5 bootloader take to put a received image in
/// place before the device advertises again.
public enum NRF52Flash {
    /// Bytes in one flash page.
    public static let pageSize = 4096
    /// Time to erase one page.
    public static let pageErase: Duration = .milliseconds(85)
    /// Time to write one 32-bit word.
    public static let wordWrite: Duration = .microseconds(41)

    /// The time to copy an image of `byteCount` bytes into place: after the reset that activates
    /// an image received in dual-bank mode, the bootloader erases each destination page and
    /// writes every word before it starts the new firmware (SDK 15–17
    /// `nrf_bootloader_fw_activation.c`: `app_activate` and `sd_activate` through `image_copy`).
    /// About 3.2 s for 100 KiB, 12.7 s for 400 KiB.
    public static func copyTime(bytes byteCount: Int) -> Duration {
        let pages = (byteCount + pageSize - 1) / pageSize
        let words = (byteCount + 3) / 4
        return pageErase * pages + wordWrite * words
    }
}
