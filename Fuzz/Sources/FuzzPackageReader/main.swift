// Zip bytes into the package reader: libzip, the local-header check, manifest.json and the init
// packets it names. Every input must give a package or throw a DFUPackageError.
import Foundation
import NordicDFU

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackageReader(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    if let package = try? DFUPackage(zipData: Data(bytes: start, count: count), name: "fuzz.zip") {
        precondition(!package.images.isEmpty, "a package without images was accepted")
        precondition(package.images.allSatisfy { !$0.firmware.isEmpty }, "an empty image was accepted")
    }
    return 0
}
