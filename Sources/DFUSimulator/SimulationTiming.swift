import NordicDFU

/// The link and flash model's parameters. The defaults and their sources are in
/// docs/simulator.md.
public struct SimulationTiming: Hashable, Sendable {
    /// BLE connection interval: the link runs in connection events this far apart.
    public var connectionInterval: Duration = .milliseconds(15)
    /// Link-layer packets the central can send in one connection event.
    public var packetsPerEvent = 6
    /// ATT payloads longer than this take two link-layer packets (251-byte data length).
    public var singleSlotPayload = 244
    /// Flash page size; data objects are erased page by page.
    public var pageSize = NRF52Flash.pageSize
    /// Time to erase one flash page.
    public var pageErase = NRF52Flash.pageErase
    /// Time to write one 32-bit word.
    public var wordWrite = NRF52Flash.wordWrite
    /// Flash operations the device queues at once, the one in progress included; a data packet
    /// that finds the queue full is dropped without an error (`NRF_FSTORAGE_SD_QUEUE_SIZE`).
    public var flashOperationQueue = 16
    /// A fixed number of transport buffers (`NRF_DFU_BLE_BUFFERS` with
    /// `NRF_DFU_BLE_BUFFERS_OVERRIDE`); nil: as many as the bootloader's MTU gives
    /// (`packetBuffers(mtu:)`).
    public var packetBufferOverride: Int?
    /// Time to hash (SHA-256) one KiB of image on the device when validating it.
    public var hashPerKiB: Duration = .microseconds(500)
    /// From the connect request to a connected, discovered link.
    public var connectionSetup: Duration = .milliseconds(90)
    /// From a reset (after any image copy) until the device advertises again.
    public var bootTime: Duration = .milliseconds(300)
    /// Real time each GATT operation also takes, as a share of the virtual time it costs: 0 (the
    /// default) none, so that a simulated update takes no real time; 1 as long as the model
    /// says. For what depends on real time around an update, such as a gateway's leases.
    public var realTimeFactor = 0.0

    public init() {}

    /// Flash that takes no time: no erase, no word write, no hash on validation. Not a model of
    /// any nRF5: for measuring what a client itself costs when nothing on the device paces it.
    public mutating func makeFlashInstant() {
        pageErase = .zero
        wordWrite = .zero
        hashPerKiB = .zero
    }

    /// Link-layer packets an ATT payload of `length` bytes occupies.
    public func slots(forPayload length: Int) -> Int { length > singleSlotPayload ? 2 : 1 }

    /// Packets of `payload` bytes that fit in one connection event.
    public func packetsPerEvent(payload: Int) -> Int { max(1, packetsPerEvent / slots(forPayload: payload)) }

    /// The Secure bootloader's transport buffers: one page's worth of its largest packet, plus
    /// one (`nrf_dfu_ble.c`: `MAX_DFU_BUFFERS = CODE_PAGE_SIZE / MAX_DFU_PKT_LEN + 1`, with
    /// `MAX_DFU_PKT_LEN` the payload of the MTU it was built for, a multiple of 4).
    public func packetBuffers(mtu: Int) -> Int {
        packetBufferOverride ?? pageSize / max(4, (mtu - 3) & ~3) + 1
    }

    /// Flash time to write `byteCount` bytes (whole words).
    public func writeTime(bytes byteCount: Int) -> Duration { wordWrite * ((byteCount + 3) / 4) }

    /// Flash time to erase the pages that hold `byteCount` bytes.
    public func eraseTime(bytes byteCount: Int) -> Duration {
        pageErase * ((byteCount + pageSize - 1) / pageSize)
    }

    /// Device time to SHA-256 `byteCount` bytes.
    public func hashTime(bytes byteCount: Int) -> Duration { hashPerKiB * byteCount / 1024 }

    /// Time for the bootloader to copy an image of `byteCount` bytes into place (dual bank):
    /// erase the destination pages and write every word.
    public func activationTime(bytes byteCount: Int) -> Duration {
        eraseTime(bytes: byteCount) + writeTime(bytes: byteCount)
    }

    /// Storing the bootloader settings (after an init command is accepted): the settings page and
    /// its backup, each erased and written with 1 KiB (`nrf_dfu_settings_write_and_backup`), as
    /// four flash operations.
    public var settingsWriteOperations: [Duration] {
        [pageErase, writeTime(bytes: 1024), pageErase, writeTime(bytes: 1024)]
    }
}
