import DFUSupport
import FirmwareUpdate
import MCUmgr
import NordicDFU

/// What `inspect` prints of a package, whatever its family: the contract's JSON object, or a
/// table for people.
protocol PackageDescription {
    var json: JSONValue { get }
    var table: String { get }
}

extension NordicPackageReport: PackageDescription {}

extension MCUbootPackageReport: PackageDescription {}

/// `inspect`'s description of a package of any family, each family's report in its own file:
/// the command reaches a family through the engine's seam (`UpdatablePackage.accept`), and a new
/// family's `visit` is asked of it by the compiler.
struct PackageInspector: PackageFamilyVisitor {
    /// The path as the user gave it.
    var file: String
    /// With a key, each image's signature is checked against it.
    var key: PublicKeyFile?

    func visit(_ package: DFUPackage) throws -> any PackageDescription {
        NordicPackageReport(package: package, file: file, key: try key?.nordic())
    }

    func visit(_ package: MCUbootPackage) throws -> any PackageDescription {
        MCUbootPackageReport(package: package, file: file, key: try key?.mcuboot())
    }
}
