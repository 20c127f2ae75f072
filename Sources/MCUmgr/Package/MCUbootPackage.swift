/// What an SMP update installs: MCUboot images, each for an image number, from an nRF Connect
/// SDK `dfu_application.zip` or from a single image file (image 0).
public struct MCUbootPackage: Sendable {
    /// One image and where it goes.
    public struct Image: Sendable {
        /// MCUboot's image number: the `image` of the first upload chunk.
        public var imageIndex: Int
        public var core: DFUApplicationPackage.Core
        public var image: MCUbootImage
        /// The slot this image is linked for, counted over all images (image `i` has slots `2i`
        /// and `2i + 1`): a direct-XIP package holds one such variant per slot (manifest `slot`);
        /// nil for an image that goes to whichever slot the device picks.
        public var slot: Int?

        public init(imageIndex: Int, core: DFUApplicationPackage.Core, image: MCUbootImage, slot: Int? = nil)
        {
            self.imageIndex = imageIndex
            self.core = core
            self.image = image
            self.slot = slot
        }
    }

    /// The package file, for messages.
    public let name: String
    /// The images in the order they are uploaded.
    public let images: [Image]

    /// The images of an nRF Connect SDK package, in manifest order.
    public init(_ package: DFUApplicationPackage) {
        name = package.name
        images = package.images.map {
            Image(imageIndex: $0.imageIndex, core: $0.core, image: $0.image, slot: $0.manifestEntry.slot)
        }
    }

    /// A single image file, for the application core (image 0).
    public init(image: MCUbootImage) {
        name = image.name
        images = [Image(imageIndex: 0, core: .application, image: image)]
    }

    /// Whether the package holds an image for an nRF5340's network core.
    public var updatesNetworkCore: Bool { images.contains { $0.core == .network } }

    /// The images, from the given one on: what a retry still has to send.
    public init(name: String, images: [Image]) {
        self.name = name
        self.images = images
    }
}
