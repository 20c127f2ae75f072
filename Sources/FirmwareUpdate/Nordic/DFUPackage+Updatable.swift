import NordicDFU

extension DFUPackage: UpdatablePackage {
    public var dfuProtocol: DFUProtocol { DFUProtocol(format) }

    public var partCount: Int { images.count }

    public func remainder(afterParts count: Int) -> FirmwarePackage { FirmwarePackage(droppingParts(count)) }

    /// The init packet's application version (0xFFFFFFFF means none).
    public var installedVersion: DFUFirmwareVersion? {
        applicationVersion.flatMap { $0 == .max ? nil : DFUFirmwareVersion(number: $0) }
    }

    /// The bootloader's copy of the last part into place, after the update's last answer.
    public var settlingTime: Duration { NRF52Flash.copyTime(bytes: images.last?.firmware.count ?? 0) }

    public var takesActivation: Bool { false }

    /// Nordic DFU packages are for nRF5 devices, which have one core.
    public var updatesNetworkCore: Bool { false }

    public var smallestPacketSize: Int? { nil }

    /// Refuses an init packet hash Nordic's bootloaders cannot check
    /// (``checkBootloadersCanVerify()``).
    public func checkDevicesCanVerify() throws(DFUPackageError) { try checkBootloadersCanVerify() }

    public func accept<Visitor: PackageFamilyVisitor>(_ visitor: Visitor) throws -> Visitor.Outcome {
        try visitor.visit(self)
    }

    public static var runner: FamilyRunner<DFUPackage> { FamilyRunner(UpdateRun.self) }
}
