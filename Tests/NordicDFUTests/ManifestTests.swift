import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// manifest.json: shape, image kinds and combinations, names, SoftDevice + bootloader sizes.
final class ManifestTests: XCTestCase {
    private let firmware = TestPackages.firmware

    private func zip(manifest: [UInt8], files: [(String, [UInt8])] = []) -> [UInt8] {
        let defaults = [("app.bin", firmware), ("app.dat", TestPackages.secureDat(for: firmware))]
        return TestZip(files: [("manifest.json", manifest)] + (files.isEmpty ? defaults : files)).bytes
    }

    private let app: [String: Any] = ["bin_file": "app.bin", "dat_file": "app.dat"]

    func testManifestMissing() {
        XCTAssertPackageError(.manifestMissing, TestZip(files: [("app.bin", firmware)]).bytes)
        // Only at the root.
        XCTAssertPackageError(
            .manifestMissing,
            TestZip(files: [("sub/manifest.json", TestPackages.manifest(["application": app]))]).bytes)
    }

    func testManifestNotJSON() {
        XCTAssertPackageError(
            .manifestInvalidJSON, zip(manifest: Array("{manifest: nope".utf8)), entry: "manifest.json")
        XCTAssertPackageError(.manifestInvalidJSON, zip(manifest: []), entry: "manifest.json")
    }

    /// Foundation's parser takes these; Python's json (nrfutil) and RFC 8259 do not.
    func testManifestSyntaxFoundationWouldForgive() {
        let good = TestPackages.manifest(["application": app])
        let texts: [[UInt8]] = [
            Array(#"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat",}}}"#.utf8),
            Array(#"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat"}},}"#.utf8),
            Array(
                #"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, "x": [1,]}"#
                    .utf8),
            [0xEF, 0xBB, 0xBF] + good,
            Array("// made by hand\n".utf8) + good,
            good + Array(" x".utf8),
            Array(String(repeating: "[", count: 100_000).utf8),
        ]
        for text in texts {
            XCTAssertPackageError(.manifestInvalidJSON, zip(manifest: text), entry: "manifest.json")
        }
        // Valid syntax, all of it.
        let spaced = Array(" \r\n\t".utf8) + good + Array("\n".utf8)
        XCTAssertNoThrow(try readPackage(zip(manifest: spaced)))
        let escapes =
            #"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat", "n": "\u00e9\"\/\n", "x": [-0.5e+3, 0, true, false, null, {}, []]}}}"#
        XCTAssertNoThrow(try readPackage(zip(manifest: Array(escapes.utf8))))
    }

    /// Syntactically JSON, but a number Foundation cannot hold: the manifest's values are wrong.
    func testNumberOutOfRangeIsManifestInvalid() {
        let text =
            #"{"manifest": {"application": {"bin_file": "app.bin", "dat_file": "app.dat", "x": 1e400}}}"#
        XCTAssertPackageError(.manifestInvalid, zip(manifest: Array(text.utf8)), entry: "manifest.json")
    }

    func testManifestWrongShape() {
        let shapes = [
            "[]", "3", #"{"application": {}}"#, #"{"manifest": 3}"#,
            #"{"manifest": {"application": "app.bin"}}"#,
            #"{"manifest": {"application": {"bin_file": 7, "dat_file": "app.dat"}}}"#,
            #"{"manifest": {"application": {"dat_file": "app.dat"}}}"#,
            #"{"manifest": {"application": {"bin_file": "app.bin"}}}"#,  // Secure needs a .dat
            #"{"manifest": {"application": {"bin_file": "", "dat_file": "app.dat"}}}"#,
            #"{"manifest": {"dfu_version": "0.5", "application": {"bin_file": "app.bin"}}}"#,
            #"{"manifest": {"dfu_version": 0.9, "application": {"bin_file": "app.bin"}}}"#,
        ]
        for shape in shapes {
            XCTAssertPackageError(.manifestInvalid, zip(manifest: Array(shape.utf8)), entry: "manifest.json")
        }
    }

    func testManifestWithoutKnownImage() {
        XCTAssertPackageError(.manifestInvalid, zip(manifest: TestPackages.manifest([:])))
        XCTAssertPackageError(
            .manifestInvalid, zip(manifest: TestPackages.manifest(["softdevice_application": app])))
        // Unknown keys that are not images are tolerated.
        XCTAssertNoThrow(
            try readPackage(zip(manifest: TestPackages.manifest(["application": app, "comment": "x"]))))
    }

    func testTwoSystemImages() {
        let sd: [String: Any] = ["bin_file": "sd.bin", "dat_file": "sd.dat"]
        let bl: [String: Any] = ["bin_file": "bl.bin", "dat_file": "bl.dat"]
        XCTAssertPackageError(
            .manifestInvalid, zip(manifest: TestPackages.manifest(["softdevice": sd, "bootloader": bl])),
            entry: "manifest.json")
        XCTAssertPackageError(
            .manifestInvalid,
            zip(
                manifest: TestPackages.manifest([
                    "softdevice_bootloader": sd, "bootloader": bl, "application": app,
                ])))
    }

    func testUnsafePathInManifest() {
        for name in ["../app.bin", "/app.bin", "x\\..\\..\\app.bin"] {
            let manifest = TestPackages.manifest(["application": ["bin_file": name, "dat_file": "app.dat"]])
            XCTAssertPackageError(.unsafeEntryPath, zip(manifest: manifest), entry: "manifest.json")
        }
        let manifest = TestPackages.manifest([
            "application": ["bin_file": "app.bin", "dat_file": "../app.dat"]
        ])
        XCTAssertPackageError(.unsafeEntryPath, zip(manifest: manifest), entry: "manifest.json")
    }

    func testImageMissing() {
        let manifest = TestPackages.manifest(["application": app])
        XCTAssertPackageError(
            .imageMissing,
            zip(manifest: manifest, files: [("app.dat", TestPackages.secureDat(for: firmware))]),
            entry: "app.bin")
        XCTAssertPackageError(
            .imageMissing, zip(manifest: manifest, files: [("app.bin", firmware)]), entry: "app.dat")
    }

    func testImageEmpty() {
        let manifest = TestPackages.manifest(["application": app])
        XCTAssertPackageError(
            .imageEmpty,
            zip(manifest: manifest, files: [("app.bin", []), ("app.dat", TestPackages.secureDat(for: []))]),
            entry: "app.bin")
    }

    func testSendOrderAndSizes() throws {
        let sd = Array(firmware.prefix(600))
        let bl = Array(firmware.suffix(424))
        let sdBl = sd + bl
        let sdBlDat = TestPackages.secureDat(for: sdBl, type: .softdeviceBootloader) {
            $0.sdSize = 600
            $0.blSize = 424
        }
        let manifest = TestPackages.manifest([
            "application": app,
            "softdevice_bootloader": [
                "bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                "info_read_only_metadata": ["sd_size": 600, "bl_size": 424],
            ],
        ])
        let files = [
            ("app.dat", TestPackages.secureDat(for: firmware)), ("sd_bl.bin", sdBl), ("app.bin", firmware),
            ("sd_bl.dat", sdBlDat),
        ]
        let package = try readPackage(zip(manifest: manifest, files: files))
        XCTAssertEqual(package.images.map(\.kind), [.softdeviceBootloader, .application])
        XCTAssertEqual(
            package.images[0].sizes, DFUImageSizes(softdevice: 600, bootloader: 424, application: 0))
        XCTAssertEqual(
            package.images[1].sizes, DFUImageSizes(softdevice: 0, bootloader: 0, application: 1024))

        // Manifest sizes that do not add up to the image.
        let wrong = TestPackages.manifest([
            "softdevice_bootloader": [
                "bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                "info_read_only_metadata": ["sd_size": 601, "bl_size": 424],
            ]
        ])
        XCTAssertPackageError(.manifestInvalid, zip(manifest: wrong, files: files))
        // Manifest sizes that add up but disagree with the init packet.
        let disagree = TestPackages.manifest([
            "softdevice_bootloader": [
                "bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                "info_read_only_metadata": ["sd_size": 500, "bl_size": 524],
            ]
        ])
        XCTAssertPackageError(.initPacketMismatch, zip(manifest: disagree, files: files), entry: "sd_bl.dat")
        // Without manifest sizes, a Secure package takes the init packet's.
        let bare = TestPackages.manifest([
            "softdevice_bootloader": ["bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat"]
        ])
        let fromInit = try readPackage(zip(manifest: bare, files: files))
        XCTAssertEqual(fromInit.images[0].sdSize, 600)
        XCTAssertEqual(fromInit.images[0].blSize, 424)
        // Half a pair is a manifest of the wrong shape, not a missing one.
        for half in [["sd_size": 600], ["bl_size": 424]] {
            let partial = TestPackages.manifest([
                "softdevice_bootloader": [
                    "bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat", "info_read_only_metadata": half,
                ]
            ])
            XCTAssertPackageError(
                .manifestInvalid, zip(manifest: partial, files: files), entry: "manifest.json")
        }
    }

    func testLegacySoftdeviceBootloaderNeedsSizes() throws {
        let dat = TestPackages.legacyDat(for: firmware, version: .v0_5)
        let files = [("sd_bl.bin", firmware), ("sd_bl.dat", dat)]
        let without = TestPackages.manifest(
            ["softdevice_bootloader": ["bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat"]], dfuVersion: 0.5)
        XCTAssertPackageError(.manifestInvalid, zip(manifest: without, files: files))
        let with = TestPackages.manifest(
            [
                "softdevice_bootloader": [
                    "bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat", "sd_size": 1000, "bl_size": 24,
                ]
            ],
            dfuVersion: 0.5)
        let package = try readPackage(zip(manifest: with, files: files))
        XCTAssertEqual(
            package.images[0].sizes, DFUImageSizes(softdevice: 1000, bootloader: 24, application: 0))
        XCTAssertEqual(package.format, .legacy)
        XCTAssertEqual(package.dfuVersion, 0.5)
    }

    func testLegacyImageWithoutInitPacket() throws {
        let manifest = TestPackages.manifest(["application": ["bin_file": "app.bin"]], dfuVersion: 0.5)
        let package = try readPackage(zip(manifest: manifest, files: [("app.bin", firmware)]))
        XCTAssertNil(package.images[0].initPacket)
        XCTAssertNil(package.applicationVersion)
    }
}
