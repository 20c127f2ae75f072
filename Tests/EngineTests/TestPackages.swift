import Foundation
import NordicDFU
import XCTest

/// DFU packages for the engine tests: the fixtures in `Tests/Fixtures`, read through the package reader, and
/// packages assembled here from their images where no fixture has the right combination.
enum TestPackages {
    /// `Tests/Fixtures`.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ path: String) throws -> DFUPackage {
        let url = fixtures.appendingPathComponent(path)
        return try DFUPackage(contentsOf: url)
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

/// A minimal zip writer (stored entries only), to assemble test packages.
enum StoredZip {
    static func make(_ entries: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        var directory: [UInt8] = []
        for (name, bytes) in entries {
            let offset = UInt32(body.count)
            let crc = CRC32.checksum(bytes)
            let nameBytes = Array(name.utf8)
            var common: [UInt8] = []
            common.le(UInt16(20))
            common.le(UInt16(0))
            common.le(UInt16(0))
            common.le(UInt32(0))
            common.le(crc)
            common.le(UInt32(bytes.count))
            common.le(UInt32(bytes.count))
            common.le(UInt16(nameBytes.count))
            common.le(UInt16(0))
            body.le(UInt32(0x0403_4B50))
            body += common + nameBytes + bytes
            directory.le(UInt32(0x0201_4B50))
            directory.le(UInt16(20))
            directory += common
            directory.le(UInt16(0))
            directory.le(UInt16(0))
            directory.le(UInt16(0))
            directory.le(UInt32(0))
            directory.le(offset)
            directory += nameBytes
        }
        var end: [UInt8] = []
        end.le(UInt32(0x0605_4B50))
        end.le(UInt16(0))
        end.le(UInt16(0))
        end.le(UInt16(entries.count))
        end.le(UInt16(entries.count))
        end.le(UInt32(directory.count))
        end.le(UInt32(body.count))
        end.le(UInt16(0))
        return body + directory + end
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func le<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<MemoryLayout<T>.size { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
