import MCUmgr
import NordicDFU

/// What an SMP update does, decided from the package and the device's image list before anything
/// is written (docs/mcumgr.md, "The version first"): a pure value.
///
/// An image is up to date when the device runs an image with its hash; it is skipped as older when
/// the device runs a newer version (unless forced). An image that a slot already holds, not
/// running, needs no upload, only its activation. The network core of an nRF5340 cannot be read
/// back: its image counts as up to date when the device lists nothing for it and runs every
/// other image of the package.
struct SMPUpdatePlan: Equatable {
    /// What happens to one image of the package.
    enum Step: Equatable {
        /// The device runs it.
        case upToDate
        /// The device runs it on test: it needs confirming only.
        case confirm
        /// The device runs a newer version.
        case deviceIsNewer
        /// A slot holds it already, not running: it needs activating only.
        case activate
        /// It is uploaded, then activated.
        case upload
    }

    /// One step per package image, in package order.
    let steps: [Step]
    /// The comparison reported before anything is sent: the first image's.
    let versionCheck: DFUVersionCheck

    /// Decides for `package` on a device whose image list is `state`; `confirms` when the update
    /// ends with a confirmation (`DFUOptions.SMP.Activation.testAndConfirm`).
    init(package: MCUbootPackage, state: ImageStateResponse, force: Bool, confirms: Bool) {
        var steps = package.images.map { Self.step(for: $0, in: state, force: force, confirms: confirms) }
        // The network core's running image is never listed: its image is taken as installed
        // with the application it came with, unless a slot of its own holds it.
        let unlisted = package.images.indices.filter { index in
            package.images[index].core == .network
                && !state.images.contains { Int($0.image) == package.images[index].imageIndex }
        }
        let othersInstalled = steps.indices.allSatisfy { unlisted.contains($0) || steps[$0] == .upToDate }
        if !unlisted.isEmpty, unlisted.count < steps.count, othersInstalled {
            for index in unlisted { steps[index] = .upToDate }
        }
        self.steps = steps
        let first = package.images[0]
        let running = Self.running(first.imageIndex, in: state)
        let skipping = steps.allSatisfy { $0 == .upToDate || $0 == .deviceIsNewer }
        let notOlder = running?.parsedVersion.map { $0 >= first.image.header.version } ?? false
        let decision: DFUVersionCheck.Decision =
            if skipping {
                .skip
            } else if !steps.contains(.upload) {
                steps.contains(.activate) ? .activate : .confirm
            } else {
                force && notOlder ? .forced : .update
            }
        versionCheck = DFUVersionCheck(
            installed: running?.version, package: first.image.header.version.imageListDescription,
            decision: decision)
    }

    /// Whether nothing is to be sent.
    var isUpToDate: Bool { versionCheck.decision == .skip }

    /// The images with `step`, in package order.
    func images(_ step: Step, of package: MCUbootPackage) -> [MCUbootPackage.Image] {
        zip(package.images, steps).filter { $0.1 == step }.map(\.0)
    }

    /// The slot that runs image `index`.
    static func running(_ index: Int, in state: ImageStateResponse) -> ImageSlotState? {
        state.images.first { Int($0.image) == index && $0.active }
    }

    private static func step(
        for image: MCUbootPackage.Image, in state: ImageStateResponse, force: Bool, confirms: Bool
    ) -> Step {
        let running = running(image.imageIndex, in: state)
        if let running, running.hash == image.image.hash {
            return confirms && !running.confirmed ? .confirm : .upToDate
        }
        if !force, let version = running?.parsedVersion, version > image.image.header.version {
            return .deviceIsNewer
        }
        let held = state.images.contains { Int($0.image) == image.imageIndex && $0.hash == image.image.hash }
        return held ? .activate : .upload
    }
}
