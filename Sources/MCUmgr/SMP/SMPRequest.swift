/// The SMP requests an image update needs, each with its group, command id and CBOR map
/// (Zephyr `smp_group_0.rst`, `smp_group_1.rst`; `os_mgmt.c`, `img_mgmt.c`, `img_mgmt_state.c`).
///
/// ```swift
/// let frame = SMPRequest.imageState.frame(sequence: 7)
/// write(frame.encoded)
/// ```
public enum SMPRequest: Hashable, Sendable {
    /// OS echo (write, command 0) `{d}`, answered with `{r}`.
    case echo(String)
    /// OS reset (write, command 5) `{force?}`: the device answers, then reboots. `force` is sent
    /// only when true.
    case reset(force: Bool)
    /// OS reset into another boot mode (`{boot_mode}`, `CONFIG_MCUMGR_GRP_OS_RESET_BOOT_MODE`): 1
    /// is the bootloader's mode, which nRF Connect SDK Bare Metal's MCUboot takes as "start the
    /// firmware loader" (sdk-nrf-bm `entering_dfu.rst`).
    case resetIntoBootMode(UInt8)
    /// OS MCUmgr parameters (read, command 6), answered with `{buf_size, buf_count}`.
    case mcumgrParameters
    /// OS bootloader information (read, command 8) `{query?}`: without a query answered with
    /// `{bootloader}`, with `query: "mode"` by `{mode, no-downgrade?}` (``BootloaderInfo``).
    case bootloaderInfo(query: String?)
    /// Image state (read, command 0), answered with the image list.
    case imageState
    /// Image state write (write, command 0) `{hash, confirm: false}`: marks the image with this
    /// hash (the image's hash TLV, at its full length) for one test boot.
    case imageTest(hash: [UInt8])
    /// Image state write `{hash?, confirm: true}`: makes the image permanent; without a hash, the
    /// running image.
    case imageConfirm(hash: [UInt8]?)
    /// Image upload (write, command 1): one chunk.
    case imageUpload(ImageUploadChunk)
    /// Image erase (write, command 5) `{slot?}`; without a slot, the one an upload would use.
    case imageErase(slot: UInt32?)
    /// Zephyr basic erase storage (group 63, write, command 0) `{}`: erases the storage partition,
    /// the application's settings and with them its bonds (Zephyr `basic_mgmt.c`); answered
    /// `{}` once done.
    case eraseStorage

    /// Command ids within their groups.
    enum Command {
        static let echo: UInt8 = 0
        static let reset: UInt8 = 5
        static let mcumgrParameters: UInt8 = 6
        static let bootloaderInfo: UInt8 = 8
        static let imageState: UInt8 = 0
        static let imageUpload: UInt8 = 1
        static let imageErase: UInt8 = 5
        static let eraseStorage: UInt8 = 0
    }

    public var group: SMPGroup {
        switch self {
        case .echo, .reset, .resetIntoBootMode, .mcumgrParameters, .bootloaderInfo: .os
        case .imageState, .imageTest, .imageConfirm, .imageUpload, .imageErase: .image
        case .eraseStorage: .zephyrBasic
        }
    }

    public var command: UInt8 {
        switch self {
        case .echo: Command.echo
        case .reset, .resetIntoBootMode: Command.reset
        case .mcumgrParameters: Command.mcumgrParameters
        case .bootloaderInfo: Command.bootloaderInfo
        case .imageState, .imageTest, .imageConfirm: Command.imageState
        case .imageUpload: Command.imageUpload
        case .imageErase: Command.imageErase
        case .eraseStorage: Command.eraseStorage
        }
    }

    public var operation: SMPOperation {
        switch self {
        case .mcumgrParameters, .bootloaderInfo, .imageState: .read
        case .echo, .reset, .resetIntoBootMode, .imageTest, .imageConfirm, .imageUpload, .imageErase,
            .eraseStorage:
            .write
        }
    }

    /// The request's CBOR map.
    public var body: CBORValue {
        switch self {
        case .echo(let text):
            return ["d": .text(text)]
        case .reset(let force):
            return force ? ["force": true] : [:]
        case .resetIntoBootMode(let mode):
            return ["boot_mode": CBORValue(Int(mode))]
        case .mcumgrParameters, .imageState, .eraseStorage:
            return [:]
        case .bootloaderInfo(let query):
            return query.map { ["query": .text($0)] } ?? [:]
        case .imageTest(let hash):
            return ["hash": .bytes(hash), "confirm": false]
        case .imageConfirm(let hash):
            return hash.map { ["hash": .bytes($0), "confirm": true] } ?? ["confirm": true]
        case .imageUpload(let chunk):
            return chunk.body
        case .imageErase(let slot):
            return slot.map { ["slot": CBORValue($0)] } ?? [:]
        }
    }

    /// The whole frame; SMP version 2 unless the device only speaks version 1.
    public func frame(sequence: UInt8, version: SMPVersion = .v2) -> SMPFrame {
        SMPFrame(
            operation: operation, version: version, group: group, sequence: sequence, command: command,
            payload: body.encoded)
    }
}
