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

/// A package family `inspect` can describe: each family's report (in its own file) conforms its
/// package, so that the command reaches a family through this protocol, not a `switch`.
protocol InspectablePackage: UpdatablePackage {
    /// The package's description; with `key`, each image's signature checked against it.
    func description(file: String, key: PublicKeyFile?) throws -> any PackageDescription
}

extension PackageReport: PackageDescription {}

extension DFUPackage: InspectablePackage {
    func description(file: String, key: PublicKeyFile?) throws -> any PackageDescription {
        PackageReport(package: self, file: file, key: try key?.nordic())
    }
}

extension MCUbootPackageReport: PackageDescription {}

extension MCUbootPackage: InspectablePackage {
    func description(file: String, key: PublicKeyFile?) throws -> any PackageDescription {
        MCUbootPackageReport(package: self, file: file, key: try key?.mcuboot())
    }
}
