import Foundation

/// One protocol family's side of a firmware file: whether bytes are its package, and reading
/// them. Each family's conformer lives in its folder; `FirmwarePackage.readers` lists them in
/// the order a file is asked.
protocol PackageReader: Sendable {
    /// The package `data` holds when it is this family's; nil when it is not, and the next
    /// family is asked. Throws what is wrong with a file that is this family's.
    /// - Parameters:
    ///   - name: the file's name, whose extension may tell a bare image's kind.
    ///   - initPacketFile: where a bare image's init packet would be, when read from a file.
    ///   - slotSize: an image larger than this is refused, when given.
    func read(_ data: Data, name: String, initPacketFile: URL?, slotSize: Int?) throws -> (
        any UpdatablePackage
    )?
}

extension FirmwarePackage {
    /// Every family's reader, in the order a file is asked; a new family adds its own here.
    /// MCUboot's come first: its images are told by their magic and nRF Connect SDK's zips by
    /// their manifest, while Nordic's reader takes any zip and any `.bin` or `.hex`.
    static let readers: [any PackageReader] = [MCUbootPackageReader(), NordicPackageReader()]
}
