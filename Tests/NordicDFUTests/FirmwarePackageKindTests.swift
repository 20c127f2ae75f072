import Foundation
import MCUmgr
import TestSupport
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// `FirmwarePackage` tells the families apart by content: an MCUboot image as binary or as Intel
/// HEX, and a file that is no firmware at all is refused saying what was expected.
final class FirmwarePackageKindTests: XCTestCase {
    private let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-kind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    /// `zephyr.signed.hex` as Zephyr writes it, at the nRF52840 DK's slot 0 (0xC000): an
    /// MCUboot image of exactly the signed binary's bytes, not a Legacy DFU application.
    func testMCUbootImageAsIntelHexIsAnMCUbootImage() throws {
        let binary = [UInt8](
            try Data(contentsOf: repository.appendingPathComponent("Firmware/smp_app_1.1.0.bin")))
        let url = directory.appendingPathComponent("zephyr.signed.hex")
        try IntelHexText.encode(binary, at: 0xC000).write(to: url, atomically: true, encoding: .utf8)
        guard let package = try FirmwarePackage(contentsOf: url).contents as? MCUbootPackage else {
            return XCTFail("an MCUboot image in Intel HEX was read as a Nordic DFU package")
        }
        XCTAssertEqual(package.images.count, 1)
        XCTAssertEqual(package.images[0].image.bytes, binary)
        XCTAssertEqual(package.images[0].image.header.version.imageListDescription, "1.1.0")
    }

    /// Hex whose data is no MCUboot image stays a bare nRF5 application.
    func testOtherIntelHexStaysANordicApplication() throws {
        let url = directory.appendingPathComponent("app.hex")
        let body = (0..<64).map { UInt8($0) }
        try IntelHexText.encode(body, at: 0x26000).write(to: url, atomically: true, encoding: .utf8)
        guard let package = try FirmwarePackage(contentsOf: url).contents as? DFUPackage else {
            return XCTFail("plain hex read as an MCUboot image")
        }
        XCTAssertEqual(package.images.first?.firmware, body)
    }

    /// A package read from bytes (a rollout store's copy) is read as its file would be, named as
    /// given, with no file written or read: a bare nRF5 image so read has no init packet, even
    /// with a `.dat` of its name in the working directory.
    func testAPackageIsReadFromBytesAsItsFileWouldBe() throws {
        let signed = try Data(contentsOf: repository.appendingPathComponent("Firmware/smp_app_1.1.0.bin"))
        guard
            let image = try FirmwarePackage(bytes: signed, name: "releases/app.bin").contents
                as? MCUbootPackage
        else {
            return XCTFail("an MCUboot image read from bytes was not one")
        }
        XCTAssertEqual(image.images[0].image.bytes, [UInt8](signed))
        guard
            let zip = try FirmwarePackage(bytes: Data(TestPackages.app()), name: "app.zip").contents
                as? DFUPackage
        else {
            return XCTFail("a Nordic zip read from bytes was not one")
        }
        XCTAssertEqual(zip.name, "app.zip")
        XCTAssertEqual(zip.images.count, 1)
        let bare = "bare-\(UUID().uuidString)"
        let dat = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent("\(bare).dat")
        try Data([0x01, 0x02]).write(to: dat)
        defer { try? FileManager.default.removeItem(at: dat) }
        guard
            let bin = try FirmwarePackage(
                bytes: Data(TestPackages.firmware), name: "\(bare).bin"
            ).contents as? DFUPackage
        else { return XCTFail("a bare nRF5 image read from bytes was not one") }
        XCTAssertEqual(bin.images.first?.firmware, TestPackages.firmware)
        XCTAssertNil(bin.images.first?.initPacket)
    }

    func testAFileThatIsNoFirmwareSaysWhatWasExpected() throws {
        let url = directory.appendingPathComponent("notes.txt")
        try Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: url)
        XCTAssertThrowsError(try FirmwarePackage(contentsOf: url)) { error in
            let error = error as? DFUPackageError
            XCTAssertEqual(error?.kind, .invalidZip)
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains("an MCUboot image (.bin or .hex)"), message)
            XCTAssertTrue(message.contains("an nRF5 firmware file (.bin or .hex)"), message)
        }
    }
}
