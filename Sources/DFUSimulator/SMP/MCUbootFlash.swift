import MCUmgr

/// The flash MCUboot manages on a simulated SMP device: a pair of slots per updatable image
/// (image 0 the application; image 1 the nRF5340's network core when simulated) and the order in
/// which the image group marked them since the last boot. Survives resets.
struct MCUbootFlash: Sendable {
    /// One pair per image number.
    var images: [MCUbootSlots]
    /// Image numbers in the order state writes marked them; MCUboot skips the network core's
    /// update when the application was marked first (nRF Connect SDK known issue NCSDK-34106).
    private(set) var marked: [Int] = []
    /// An nRF5340 with one image pair: what MCUboot leaves in image 0's secondary slot after
    /// copying a network core image from there; nil for other devices.
    var onePair: OnePairNetworkCore?
    /// With one image pair: the hash of what the network core runs, which no list shows.
    private(set) var onePairNetworkCoreHash: [UInt8]?

    init(images: [MCUbootSlots], onePair: OnePairNetworkCore? = nil, networkCoreHash: [UInt8]? = nil) {
        precondition(!images.isEmpty, "MCUboot manages at least the application's slots")
        self.images = images
        self.onePair = onePair
        onePairNetworkCoreHash = networkCoreHash
    }

    var application: MCUbootSlots { images[0] }

    /// The image hash this device's MCUboot and image group use.
    var hashAlgorithm: MCUbootHashAlgorithm { images[0].hashAlgorithm }

    /// The listed slots of every image, image by image.
    var states: [MCUbootSlotState] { images.flatMap(\.states) }

    /// The state read answer: `{images: [...], splitStatus: 0}`; `image` is sent only with more
    /// than one updatable image, as Zephyr does.
    var imageList: [CBORValue: CBORValue] {
        let numbered = images.count > 1
        return ["images": .array(states.map { $0.listEntry(numbered: numbered) }), "splitStatus": 0]
    }

    /// The image number and slot holding an image with this hash.
    func location(of hash: [UInt8]) -> (image: Int, slot: Int)? {
        for (number, pair) in images.enumerated() {
            if let slot = pair.slot(holding: hash) { return (number, slot) }
        }
        return nil
    }

    /// A state write on `image`'s pair; a new test or permanent request is remembered in order.
    mutating func setNextBoot(image: Int, slot: Int, confirm: Bool) -> ImageManagementReturnCode? {
        let before = images[image].nextBoot
        if let refusal = images[image].setNextBoot(slot: slot, confirm: confirm) { return refusal }
        if images[image].nextBoot != before, slot == 1 { marked.append(image) }
        return nil
    }

    /// MCUboot at a reset: each image is installed as its pair asks, the network core's through
    /// the application core (PCD) unless the application was marked before it. Returns the bytes
    /// copied and how many new images now run.
    mutating func boot(testedImageFails: Bool) -> (copied: Int, installed: Int) {
        var copied = 0
        var installed = 0
        let handedOver = copyToNetworkCore()
        if let handedOver {
            copied += handedOver
            installed += handedOver > 0 ? 1 : 0
        }
        for number in images.indices {
            if number == 0, handedOver != nil { continue }
            if images[number].isNetworkCore, let net = marked.firstIndex(of: number),
                let app = marked.firstIndex(of: 0), app < net
            {
                images[number].dropRequest()
                continue
            }
            let installing = images[number].nextBoot == .test || images[number].nextBoot == .permanent
            let running = images[number].primary.hash
            copied += images[number].boot(testedImageFails: testedImageFails && number == 0)
            if installing, images[number].primary.hash != running { installed += 1 }
        }
        marked = []
        return (copied, installed)
    }

    /// One image pair: a marked image in image 0's secondary slot whose reset vector points into
    /// the network core's flash goes there through PCD, and the application stays (sdk-mcuboot
    /// `loader.c`: the swap type becomes none after the copy). Returns the bytes copied (0 when
    /// the copy is skipped), or nil when image 0's slots boot as usual.
    private mutating func copyToNetworkCore() -> Int? {
        let application = images[0]
        guard let onePair, application.nextBoot == .test || application.nextBoot == .permanent,
            let incoming = application.secondary,
            OnePairNetworkCore.isNetworkCoreImage(application.secondaryBytes)
        else { return nil }
        switch onePair {
        case .skipsCopy: return 0
        case .erasesImage: images[0].eraseSecondary()
        case .keepsImage: images[0].dropRequest()
        }
        onePairNetworkCoreHash = incoming.hash
        return incoming.size
    }
}
