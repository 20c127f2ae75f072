import Foundation
import MCUmgr
import TestSupport
import XCTest

@testable import NordicDFU

/// `dfu_application.zip` packages built in the test as nrf's generate_zip.py writes them, read
/// through NordicDFU's zip reader.
final class DFUApplicationPackageTests: XCTestCase {
    private let app: [UInt8] = {
        var image = TestImage()
        image.headerSize = 0x200
        return image.bytes
    }()
    private let net: [UInt8] = {
        var image = TestImage()
        image.version = MCUbootVersion(major: 0, minor: 9, revision: 1)
        image.body = [UInt8](repeating: 0x5A, count: 700)
        return image.bytes
    }()

    /// A manifest as generate_zip.py writes it: `0x` values as numbers, the rest as strings.
    private func manifest(_ files: [[String: Any]]) -> [UInt8] {
        let top: [String: Any] = [
            "format-version": 0, "time": 1_717_000_000, "files": files, "name": "blinky",
        ]
        return Array(
            try! JSONSerialization.data(withJSONObject: top, options: [.prettyPrinted, .sortedKeys]))
    }

    private var appEntry: [String: Any] {
        [
            "type": "application", "board": "nrf5340dk/nrf5340/cpuapp", "soc": "nrf5340",
            "load_address": 0xC200, "image_index": "0", "slot_index_primary": "1",
            "slot_index_secondary": "2",
            "version_MCUBOOT": "1.2.3+4", "size": app.count, "file": "blinky.signed.bin",
            "modtime": 1_717_000_000,
        ]
    }

    private var netEntry: [String: Any] {
        [
            "type": "application", "board": "nrf5340dk/nrf5340/cpunet", "soc": "nrf5340",
            "load_address": 0x0100_8800, "image_index": "1", "slot_index_primary": "3",
            "slot_index_secondary": "4",
            "version": "0.9.1+0", "size": net.count, "file": "ipc_radio.bin", "modtime": 1_717_000_000,
        ]
    }

    /// Zips the files, then reads them back through NordicDFU's zip reader.
    private func read(_ files: [(String, [UInt8])]) throws -> DFUApplicationPackage {
        let zip = TestZip(files: files).bytes
        let entries = try zip.withUnsafeBytes { buffer in
            let archive = try ZipArchive(bytes: buffer, fileName: "dfu_application.zip")
            return try Dictionary(
                uniqueKeysWithValues: archive.entries.keys.map { ($0, try archive.contents(of: $0)!) })
        }
        return try DFUApplicationPackage(entries: entries, name: "dfu_application.zip")
    }

    func testApplicationAndNetworkCore() throws {
        let package = try read([
            ("manifest.json", manifest([appEntry, netEntry])), ("blinky.signed.bin", app),
            ("ipc_radio.bin", net),
        ])
        XCTAssertEqual(package.manifest.name, "blinky")
        XCTAssertEqual(package.manifest.formatVersion, 0)
        XCTAssertEqual(package.images.map(\.core), [.application, .network])
        XCTAssertEqual(package.images.map(\.imageIndex), [0, 1])
        XCTAssertEqual(package.images[0].image.header.version, MCUbootVersion("1.2.3+4"))
        XCTAssertEqual(package.images[0].image.header.headerSize, 0x200)
        XCTAssertEqual(package.images[1].image.bytes, net)
        let entry = package.images[1].manifestEntry
        XCTAssertEqual(entry.loadAddress, 0x0100_8800)
        XCTAssertEqual([entry.primarySlot, entry.secondarySlot], [3, 4])
        XCTAssertEqual(entry.version, "0.9.1+0")
        XCTAssertEqual(package.images[0].manifestEntry.mcubootVersion, "1.2.3+4")
    }

    func testOtherImagesAndNumberForms() throws {
        var wifi = appEntry
        wifi["file"] = "nrf70.bin"
        wifi["image_index"] = 2
        wifi["size"] = "\(app.count)"
        wifi["load_address"] = "0x10000"
        wifi["version_MCUBOOT"] = nil
        let package = try read([("manifest.json", manifest([wifi])), ("nrf70.bin", app)])
        XCTAssertEqual(package.images.map(\.core), [.other])
        XCTAssertEqual(package.images[0].manifestEntry.loadAddress, 0x10000)
    }

    private func assertRefused(
        _ files: [(String, [UInt8])], _ kind: DFUApplicationPackageError.Kind, entry: String?,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try read(files), file: file, line: line) {
            guard let error = $0 as? DFUApplicationPackageError else {
                return XCTFail("\($0)", file: file, line: line)
            }
            XCTAssertEqual(error.kind, kind, error.description, file: file, line: line)
            XCTAssertEqual(error.entry, entry, file: file, line: line)
            XCTAssertTrue(error.description.contains("dfu_application.zip"), file: file, line: line)
        }
    }

    func testRefusals() {
        assertRefused([("blinky.signed.bin", app)], .manifestMissing, entry: nil)
        assertRefused([("manifest.json", Array("{".utf8))], .manifestInvalid, entry: "manifest.json")
        assertRefused([("manifest.json", manifest([]))], .manifestInvalid, entry: "manifest.json")
        var noIndex = appEntry
        noIndex["image_index"] = nil
        assertRefused(
            [("manifest.json", manifest([noIndex])), ("blinky.signed.bin", app)], .manifestInvalid,
            entry: "manifest.json")
        var badIndex = appEntry
        badIndex["image_index"] = "zero"
        assertRefused(
            [("manifest.json", manifest([badIndex])), ("blinky.signed.bin", app)], .manifestInvalid,
            entry: "manifest.json")
        assertRefused([("manifest.json", manifest([appEntry]))], .imageMissing, entry: "blinky.signed.bin")
        var wrongSize = appEntry
        wrongSize["size"] = 12
        assertRefused(
            [("manifest.json", manifest([wrongSize])), ("blinky.signed.bin", app)], .manifestMismatch,
            entry: "blinky.signed.bin")
        var wrongVersion = appEntry
        wrongVersion["version_MCUBOOT"] = "1.2.4+4"
        assertRefused(
            [("manifest.json", manifest([wrongVersion])), ("blinky.signed.bin", app)], .manifestMismatch,
            entry: "blinky.signed.bin")
        var twice = netEntry
        twice["image_index"] = "0"
        assertRefused(
            [
                ("manifest.json", manifest([appEntry, twice])), ("blinky.signed.bin", app),
                ("ipc_radio.bin", net),
            ],
            .manifestMismatch, entry: "ipc_radio.bin")
        var unsigned = app
        unsigned[0] = 0
        assertRefused(
            [("manifest.json", manifest([appEntry])), ("blinky.signed.bin", unsigned)], .invalidImage,
            entry: "blinky.signed.bin")
    }
}
