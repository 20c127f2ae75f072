import MCUmgr

/// The image layout an SMP device's list shows: how many updatable images it lists and whether
/// it numbers them. Zephyr writes `image` only in a build with more than one updatable image
/// (`img_mgmt_state.c`, `img_mgmt_state_encode_slot()`), so an nRF5340 built for simultaneous
/// updates lists `image: 0/1`, while an nRF5340 with one image pair and a single-image device
/// both list unnumbered entries: the list cannot tell those two apart, a package with a network
/// core image decides (docs/mcumgr.md, "One image pair").
public struct SMPImageLayout: Hashable, Sendable {
    /// The updatable images the list names (1 when it numbers none).
    public var images: Int
    /// Whether the entries carry `image`.
    public var numbered: Bool

    public init(images: Int, numbered: Bool) {
        self.images = images
        self.numbered = numbered
    }

    /// The layout `list` shows; nil when it lists nothing.
    public init?(_ list: ImageStateResponse) {
        guard !list.images.isEmpty else { return nil }
        self.init(images: Set(list.images.map(\.image)).count, numbered: list.numbersImages)
    }

    /// As people read it, without a package: numbered entries come from a build with more than
    /// one updatable image; unnumbered ones from either setup the list cannot tell apart.
    public var summary: String {
        numbered
            ? "\(images) image\(images == 1 ? "" : "s") listed, numbered: a build with more than one updatable image"
            : "1 image listed, not numbered: a single-image device or an nRF5340 with one image pair "
                + "(a package with a network core image decides)"
    }

    /// As people read it for a package that has (`networkCore`) or has no network core image:
    /// unnumbered entries with such a package are the one image pair, updated in two cycles.
    public func summary(updatingNetworkCore networkCore: Bool) -> String {
        guard !numbered else { return summary }
        return "1 image listed, not numbered" + (networkCore ? ": one image pair: two cycles" : "")
    }
}
