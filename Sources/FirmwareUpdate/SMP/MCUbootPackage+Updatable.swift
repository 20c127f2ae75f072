import MCUmgr

extension MCUbootPackage: UpdatablePackage {
    public var dfuProtocol: DFUProtocol { .smp }

    public var partCount: Int { images.count }

    public func remainder(afterParts count: Int) -> FirmwarePackage {
        FirmwarePackage(MCUbootPackage(name: name, images: Array(images.dropFirst(count))))
    }

    /// The first image's `major.minor.revision`.
    public var installedVersion: DFUFirmwareVersion? {
        images.first.flatMap { image in
            let version = image.image.header.version
            return DFUFirmwareVersion("\(version.major).\(version.minor).\(version.revision)")
        }
    }

    /// None: an update that resets the device ends only once it is back (`SMPUpdateRun.reset`).
    public var settlingTime: Duration { .zero }

    public var takesActivation: Bool { true }

    /// The first frame of each image carries its header: the largest of them.
    public var smallestPacketSize: Int? {
        images.map {
            ImageUploadChunk.smallestFirstFrame(image: UInt32($0.imageIndex), length: $0.image.bytes.count)
        }.max()
    }

    /// Every MCUboot image the package reader accepts is one the bootloader can check.
    public func checkDevicesCanVerify() throws(Never) {}

    public func accept<Visitor: PackageFamilyVisitor>(_ visitor: Visitor) throws -> Visitor.Outcome {
        try visitor.visit(self)
    }

    public static var runner: FamilyRunner<MCUbootPackage> { FamilyRunner(SMPUpdateRun.self) }
}
