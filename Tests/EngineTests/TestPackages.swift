import Foundation
import NordicDFU
import TestSupport
import XCTest

/// DFU packages for the engine tests: the fixtures in `Tests/Fixtures`, read through the package reader, and
/// packages assembled here from their images where no fixture has the right combination.
enum TestPackages {
    /// `Tests/Fixtures`.
    static var fixtures: URL { Fixtures.directory }

    /// A fixture package, read.
    static func fixture(_ path: String) throws -> DFUPackage {
        try DFUPackage(contentsOf: Fixtures.url(path))
    }

    /// Secure application, 12288 bytes, fw_version 2.7.31, sd_req 0xB6.
    static func secureApp() throws -> DFUPackage {
        try fixture("secure/secure_app_12k_hex_signed_version_string.zip")
    }

    /// Secure SoftDevice + bootloader, 175468 bytes, sd_req 0xAE.
    static func secureSDBL() throws -> DFUPackage { try fixture("secure/secure_sd_bl_signed.zip") }

    /// Secure SoftDevice + bootloader and an application (fw_version 5).
    static func secureSDBLApp() throws -> DFUPackage { try fixture("secure/secure_sd_bl_app_signed.zip") }

    /// Legacy application, 20000 bytes, application_version 1.
    static func legacyApp() throws -> DFUPackage { try fixture("legacy/legacy_app_20000_hex.zip") }

    /// Legacy SoftDevice + bootloader, 129844 bytes.
    static func legacySDBL() throws -> DFUPackage { try fixture("legacy/legacy_sd_bl.zip") }

    /// Legacy SoftDevice + bootloader and an application: the two fixtures' images in one zip.
    static func legacySDBLApp() throws -> DFUPackage {
        let system = try legacySDBL().images[0]
        let application = try legacyApp().images[0]
        let manifest = """
            {"manifest": {"dfu_version": 0.5,
              "softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                "sd_size": \(system.sdSize ?? 0), "bl_size": \(system.blSize ?? 0)},
              "application": {"bin_file": "app.bin", "dat_file": "app.dat"}}}
            """
        let zip = StoredZip.make([
            ("manifest.json", Array(manifest.utf8)), ("sd_bl.bin", system.firmware),
            ("sd_bl.dat", system.initPacket ?? []), ("app.bin", application.firmware),
            ("app.dat", application.initPacket ?? []),
        ])
        return try DFUPackage(zipData: Data(zip), name: "legacy_sd_bl_app.zip")
    }
}
