/// One image upload request: `{off, data}`, and at offset 0 also `{len, sha?, image?, upgrade?}`
/// (Zephyr `img_mgmt.c`, `img_mgmt_upload`).
///
/// The device writes `data` at `off` when `off` is the offset it expects, and answers with the
/// offset it expects next either way; the first chunk must hold the whole 32-byte MCUboot header.
public struct ImageUploadChunk: Hashable, Sendable {
    /// What only the first chunk (offset 0) carries.
    public struct Start: Hashable, Sendable {
        /// The image number (0 the application core, 1 e.g. the network core); sent when not 0.
        public var image: UInt32
        /// `len`: the whole file's length.
        public var length: UInt32
        /// `sha`: the SHA-256 of the whole file (not the image hash). It names the upload, so that
        /// a device still holding an interrupted upload of the same file answers with its offset,
        /// and lets the device report `match` after the last chunk.
        public var sha256: [UInt8]?
        /// `upgrade`: the device refuses an image not newer than the running one (sent when true).
        public var upgrade: Bool

        public init(image: UInt32 = 0, length: UInt32, sha256: [UInt8]?, upgrade: Bool = false) {
            self.image = image
            self.length = length
            self.sha256 = sha256
            self.upgrade = upgrade
        }
    }

    public var offset: UInt32
    public var data: [UInt8]
    /// Set for the first chunk, nil for the others.
    public var start: Start?

    /// The first chunk of a file.
    public init(first data: [UInt8], start: Start) {
        offset = 0
        self.data = data
        self.start = start
    }

    /// A later chunk.
    public init(offset: UInt32, data: [UInt8]) {
        self.offset = offset
        self.data = data
        start = nil
    }

    /// The request's CBOR map.
    public var body: CBORValue {
        var entries: [CBORValue: CBORValue] = ["off": CBORValue(offset), "data": .bytes(data)]
        if let start {
            entries["len"] = CBORValue(start.length)
            if let sha256 = start.sha256 { entries["sha"] = .bytes(sha256) }
            if start.image != 0 { entries["image"] = CBORValue(start.image) }
            if start.upgrade { entries["upgrade"] = true }
        }
        return .map(entries)
    }

    /// The most data bytes a chunk at `offset` (with `start` for the first) can carry so that its
    /// whole SMP frame, 8-byte header and CBOR map, is at most `frameLimit` bytes; 0 when not even
    /// an empty chunk fits. The CBOR overhead is counted exactly, with the length head of the data
    /// growing from 1 to 2, 3 or 5 bytes as the data does.
    public static func maximumDataCount(frameLimit: Int, offset: UInt32, start: Start?) -> Int {
        var empty = ImageUploadChunk(offset: offset, data: [])
        empty.start = start
        // The frame without data, less the 1-byte head of the empty byte string.
        let fixed = SMPHeader.size + empty.body.encoded.count - 1
        let budget = frameLimit - fixed
        guard budget > 0 else { return 0 }
        var count = budget - 1
        while count > 0 && count + CBORValue.headCount(argument: UInt64(count)) > budget {
            count -= 1
        }
        return count
    }

    /// The largest SMP frame a client may send in one request over Bluetooth LE: ATT_MTU − 3
    /// (one write), or, when the device reassembles writes
    /// (`CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`), its `buf_size` alone; never more than
    /// `buf_size`.
    public static func frameLimit(attMTU: Int, bufferSize: Int, deviceReassembles: Bool) -> Int {
        deviceReassembles ? bufferSize : min(attMTU - 3, bufferSize)
    }
}
