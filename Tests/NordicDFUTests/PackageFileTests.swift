import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// Package files on disk: what is not a regular, readable file is refused as such, and a large
/// file is never read into memory.
final class PackageFileTests: XCTestCase {
    /// A huge file that is no package is refused from its last bytes: it is mapped, not read, so
    /// it costs no memory (a 1 GiB sparse file here).
    func testHugeFileIsNotReadIntoMemory() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-huge-\(UUID().uuidString).zip")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let before = Self.maximumResidentKiB()
        XCTAssertThrowsError(try DFUPackage(contentsOf: url)) { error in
            XCTAssertEqual((error as? DFUPackageError)?.kind, .invalidZip)
        }
        XCTAssertLessThan(Self.maximumResidentKiB() - before, 200 * 1024)
    }

    /// A FIFO (or a device) is not a package file: refused at once, never read (it could block).
    func testSpecialFilesAreNotRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-fifo-\(UUID().uuidString).zip")
        XCTAssertEqual(mkfifo(url.path, 0o600), 0)
        defer { try? FileManager.default.removeItem(at: url) }
        for path in [url.path, "/dev/zero"] {
            XCTAssertThrowsError(try DFUPackage(contentsOf: URL(fileURLWithPath: path))) { error in
                XCTAssertEqual((error as? DFUPackageError)?.kind, .fileNotFound)
                XCTAssertTrue(
                    (error as? DFUPackageError)?.reason.contains("regular file") ?? false, "\(error)")
            }
        }
        // A symbolic link to a package is followed.
        let link = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-link-\(UUID().uuidString).zip")
        let target = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-target-\(UUID().uuidString).zip")
        try Data(TestPackages.app()).write(to: target)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        defer {
            try? FileManager.default.removeItem(at: link)
            try? FileManager.default.removeItem(at: target)
        }
        XCTAssertEqual(try DFUPackage(contentsOf: link).images.count, 1)
    }

    /// A package is read from the bytes a caller already read (`FirmwarePackage` looks at them
    /// first): the file is not read again, only its name and extension count.
    func testPackageIsReadFromTheBytesAlreadyRead() throws {
        let zip = try DFUPackage(
            fileData: Data(TestPackages.app()), of: URL(fileURLWithPath: "/nonexistent/app.zip"))
        XCTAssertEqual(zip.images.count, 1)
        XCTAssertEqual(zip.name, "/nonexistent/app.zip")
        let bin = try DFUPackage(
            fileData: Data(TestPackages.firmware), of: URL(fileURLWithPath: "/nonexistent/app.bin"))
        XCTAssertEqual(bin.images.first?.firmware, TestPackages.firmware)
    }

    private static func maximumResidentKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    func testMissingFile() {
        let url = URL(fileURLWithPath: "/nonexistent/dir/package.zip")
        XCTAssertThrowsError(try DFUPackage(contentsOf: url)) { error in
            let error = error as! DFUPackageError
            XCTAssertEqual(error.kind, .fileNotFound)
            XCTAssertTrue(error.message.contains("/nonexistent/dir/package.zip"))
        }
        // A directory cannot be read as a package either.
        XCTAssertThrowsError(try DFUPackage(contentsOf: URL(fileURLWithPath: NSTemporaryDirectory()))) {
            error in
            XCTAssertEqual((error as! DFUPackageError).kind, .fileNotFound)
        }
    }
}
