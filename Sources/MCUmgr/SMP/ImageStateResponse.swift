/// The image list that image state read and state write answer with (Zephyr
/// `img_mgmt_state.c`): `{images: [{image?, slot, version, hash, bootable, pending, confirmed,
/// active, permanent}], splitStatus?}`.
public struct ImageStateResponse: Hashable, Sendable {
    public var images: [ImageSlotState]
    /// Always 0 from Zephyr, and absent with `CONFIG_MCUMGR_GRP_IMG_FRUGAL_LIST`.
    public var splitStatus: Int?
    /// Whether the entries carry `image`: Zephyr writes it only in a build with more than one
    /// updatable image (`img_mgmt_state_encode_slot()`), so an nRF5340 with one image pair for
    /// both cores lists none.
    public var numbersImages: Bool

    public init(images: [ImageSlotState], splitStatus: Int?, numbersImages: Bool = false) {
        self.images = images
        self.splitStatus = splitStatus
        self.numbersImages = numbersImages
    }

    /// Reads the answer to ``SMPRequest/imageState``, ``SMPRequest/imageTest(hash:)`` or
    /// ``SMPRequest/imageConfirm(hash:)``.
    public init(_ response: SMPResponse) throws(SMPResponseError) {
        try response.check(
            group: .image, command: SMPRequest.Command.imageState,
            operations: [.readResponse, .writeResponse])
        guard let list = response.body["images"]?.arrayValue else { throw .malformed("no images array") }
        var images: [ImageSlotState] = []
        for entry in list {
            guard let map = entry.mapValue else { throw .malformed("an images entry is not a map") }
            images.append(try ImageSlotState(map, in: response))
        }
        self.images = images
        numbersImages = list.contains { $0.mapValue?[.text("image")] != nil }
        if let split = response.body["splitStatus"] {
            guard let value = split.integer(as: Int.self) else {
                throw .malformed("splitStatus is not an integer")
            }
            splitStatus = value
        }
    }
}

/// One slot of the image list.
///
/// A flag the device leaves out is false: with `CONFIG_MCUMGR_GRP_IMG_FRUGAL_LIST` Zephyr sends
/// only the true ones.
public struct ImageSlotState: Hashable, Sendable {
    /// The image number; 0 when the device leaves it out, as single-image builds do.
    public var image: UInt32
    /// 0 primary, 1 secondary, within the image.
    public var slot: UInt32
    /// As Zephyr writes it: `major.minor.revision`, then `.build` when the build number is not 0.
    public var version: String
    /// The image's hash: its hash TLV, 32 or 64 bytes (see ``MCUbootImage/hash``).
    public var hash: [UInt8]
    public var bootable: Bool
    /// Marked to run at the next boot (for a test, or permanently with ``permanent``).
    public var pending: Bool
    public var confirmed: Bool
    /// Running now.
    public var active: Bool
    public var permanent: Bool

    public init(
        image: UInt32 = 0, slot: UInt32, version: String, hash: [UInt8], bootable: Bool = true,
        pending: Bool = false, confirmed: Bool = false, active: Bool = false, permanent: Bool = false
    ) {
        self.image = image
        self.slot = slot
        self.version = version
        self.hash = hash
        self.bootable = bootable
        self.pending = pending
        self.confirmed = confirmed
        self.active = active
        self.permanent = permanent
    }

    /// The version as numbers; nil when the device wrote something else (`<???>`).
    public var parsedVersion: MCUbootVersion? { MCUbootVersion(version) }

    init(_ map: [CBORValue: CBORValue], in response: SMPResponse) throws(SMPResponseError) {
        image = map[.text("image")] == nil ? 0 : try response.required("image", as: UInt32.self, in: map)
        slot = try response.required("slot", as: UInt32.self, in: map)
        guard let version = map[.text("version")]?.textValue else {
            throw .malformed("an image without version")
        }
        // 32 bytes, or 64 on a device built with `MCUBOOT_BOOTLOADER_USES_SHA512` (img_mgmt's
        // `IMAGE_SHA_LEN`): the length of the hash TLV it looks for in its images.
        guard let hash = map[.text("hash")]?.bytesValue, MCUbootHashAlgorithm(byteCount: hash.count) != nil
        else {
            throw .malformed("an image without a hash of 32, 48 or 64 bytes")
        }
        self.version = version
        self.hash = hash
        func flag(_ key: String) throws(SMPResponseError) -> Bool {
            guard let value = map[.text(key)] else { return false }
            guard let flag = value.boolValue else { throw .malformed("\(key) is not a boolean") }
            return flag
        }
        bootable = try flag("bootable")
        pending = try flag("pending")
        confirmed = try flag("confirmed")
        active = try flag("active")
        permanent = try flag("permanent")
    }
}
