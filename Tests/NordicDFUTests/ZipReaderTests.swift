import Foundation
import TestSupport
import XCTest

@testable import NordicDFU

/// The zip layer: damaged and hostile archives, each refused with the contract's class.
final class ZipReaderTests: XCTestCase {
    func testValidBuiltPackageReads() throws {
        let package = try readPackage(TestPackages.app())
        XCTAssertEqual(package.format, .secure)
        XCTAssertEqual(package.images.map(\.firmware), [TestPackages.firmware])
        XCTAssertEqual(package.applicationVersion, 7)
    }

    func testDeflatedEntriesRead() throws {
        var entries = TestPackages.appEntries()
        for index in entries.indices { entries[index].method = 8 }
        let package = try readPackage(TestZip(entries).bytes)
        XCTAssertEqual(package.images.first?.firmware, TestPackages.firmware)
    }

    func testNotAZip() {
        XCTAssertPackageError(.invalidZip, Array("this is not a zip archive at all".utf8))
    }

    func testEmptyFile() {
        XCTAssertPackageError(.invalidZip, [])
    }

    func testTruncated() {
        let zip = TestPackages.app()
        XCTAssertPackageError(.invalidZip, Array(zip.prefix(zip.count - 30)))
        XCTAssertPackageError(.invalidZip, Array(zip.prefix(zip.count / 2)))
    }

    func testBadEndOfCentralDirectory() {
        var zip = TestPackages.app()
        // The central directory offset, 16 bytes into the 22-byte end record.
        zip[zip.count - 6] &+= 7
        XCTAssertPackageError(.invalidZip, zip)
        var count = TestPackages.app()
        count[count.count - 12] = 9  // total entries
        XCTAssertPackageError(.invalidZip, count)
    }

    func testBadLocalHeader() {
        var zip = TestPackages.app()
        // The second entry's local header: right after the first entry's header, name and data.
        let first = TestPackages.appEntries()[0]
        let second = 30 + first.name.utf8.count + first.data.count
        XCTAssertEqual(Array(zip[second..<second + 4]), [0x50, 0x4B, 0x03, 0x04])
        zip[second + 3] = 0x09
        XCTAssertPackageError(.invalidZip, zip)

        var sizes = TestPackages.app()
        sizes[second + 22] &+= 1  // local uncompressed size disagrees with the central directory
        XCTAssertPackageError(.invalidZip, sizes)
    }

    /// Info-ZIP writing to a pipe (`zip - …`) uses data descriptors but still puts the real
    /// uncompressed size in the local header (CRC and compressed size 0); Debian's libzip 1.7
    /// consistency check refused that.
    func testDataDescriptorsWithPartlyFilledLocalHeaders() throws {
        var entries = TestPackages.appEntries()
        for index in entries.indices {
            entries[index].method = 8
            entries[index].dataDescriptor = true
            entries[index].localHeader = (0, 0, UInt32(entries[index].data.count))
        }
        XCTAssertEqual(try readPackage(TestZip(entries).bytes).images.first?.firmware, TestPackages.firmware)
        // All zero, as Python's zipfile writes to a stream, reads too.
        for index in entries.indices { entries[index].localHeader = (0, 0, 0) }
        XCTAssertEqual(try readPackage(TestZip(entries).bytes).images.first?.firmware, TestPackages.firmware)
        // But a value that is neither zero nor the central directory's is refused.
        entries[1].localHeader = (0, 0, 77)
        XCTAssertPackageError(.invalidZip, TestZip(entries).bytes, entry: "app.bin")
    }

    func testLocalHeaderDisagreeingWithCentralDirectory() {
        var renamed = TestPackages.appEntries()
        renamed[1].localName = "xpp.bin"
        XCTAssertPackageError(.invalidZip, TestZip(renamed).bytes, entry: "app.bin")
        var crc = TestPackages.appEntries()
        crc[2].localHeader = (1, UInt32(crc[2].data.count), UInt32(crc[2].data.count))
        XCTAssertPackageError(.invalidZip, TestZip(crc).bytes, entry: "app.dat")
    }

    /// Method 99 (WinZip AES) makes libzip report an inconsistency at open: still the class of
    /// an unsupported method.
    func testAESMethodIsUnsupportedCompression() {
        var entries = TestPackages.appEntries()
        entries[1].method = 99
        XCTAssertPackageError(.unsupportedCompression, TestZip(entries).bytes, entry: "app.bin")
    }

    func testCRCMismatch() {
        var entries = TestPackages.appEntries()
        entries[1].crc32 = CRC32.checksum(TestPackages.firmware) ^ 1
        XCTAssertPackageError(.invalidZip, TestZip(entries).bytes, entry: "app.bin")
        entries[1].method = 8
        XCTAssertPackageError(.invalidZip, TestZip(entries).bytes, entry: "app.bin")
    }

    func testDeclaredSizeOverLimitIsRefusedBeforeReading() {
        var entries = TestPackages.appEntries()
        entries[1].method = 8
        entries[1].uncompressedSize = UInt32(DFUPackage.maximumEntrySize + 1)
        XCTAssertPackageError(.entryTooLarge, TestZip(entries).bytes, entry: "app.bin")
        // Even on an entry the manifest does not name.
        var extra = TestPackages.appEntries()
        var huge = TestZip.Entry("notes.txt", Array("hi".utf8), method: 8)
        huge.uncompressedSize = UInt32.max - 1  // (UInt32.max would mean "see the ZIP64 record")
        extra.append(huge)
        XCTAssertPackageError(.entryTooLarge, TestZip(extra).bytes, entry: "notes.txt")
    }

    /// Damage in an entry the manifest does not name is damage all the same.
    func testDamagedEntryOutsideTheManifest() {
        var crc = TestPackages.appEntries()
        var notes = TestZip.Entry("notes.txt", Array("release notes".utf8), method: 8)
        notes.crc32 = 1
        crc.append(notes)
        XCTAssertPackageError(.invalidZip, TestZip(crc).bytes, entry: "notes.txt")
        var bomb = TestPackages.appEntries()
        var zeros = TestZip.Entry("zeros.bin", [], method: 8)
        zeros.payload = Deflate.zeros(count: DFUPackage.maximumEntrySize + 4096)
        zeros.uncompressedSize = 1024
        bomb.append(zeros)
        XCTAssertPackageError(.entryTooLarge, TestZip(bomb).bytes, entry: "zeros.bin")
    }

    /// Entries of 16 MiB each are allowed, but not more than 64 MiB in all: each is inflated to be
    /// checked, and five entries of zeros would otherwise cost seconds from a few KiB of zip.
    func testEntriesDeclaringTooMuchInAll() {
        let zeros = Deflate.zeros(count: DFUPackage.maximumEntrySize)
        var entries = TestPackages.appEntries()
        for index in 0..<5 {
            var entry = TestZip.Entry("zeros\(index).bin", [], method: 8)
            entry.payload = zeros
            entry.uncompressedSize = UInt32(DFUPackage.maximumEntrySize)
            entries.append(entry)
        }
        XCTAssertPackageError(.entryTooLarge, TestZip(entries).bytes, entry: "zeros3.bin")
    }

    func testInflatedLengthDiffersFromDeclared() {
        for declared in [TestPackages.firmware.count - 10, TestPackages.firmware.count + 10] {
            var entries = TestPackages.appEntries()
            entries[1].method = 8
            entries[1].uncompressedSize = UInt32(declared)
            XCTAssertPackageError(.invalidZip, TestZip(entries).bytes, entry: "app.bin")
        }
    }

    func testDeflateBombIsRefusedWhileInflating() {
        let bomb = Deflate.zeros(count: DFUPackage.maximumEntrySize + 4096)
        XCTAssertLessThan(bomb.count, 200 * 1024)
        for declared in [1024, DFUPackage.maximumEntrySize] {
            var entries = TestPackages.appEntries()
            entries[1] = TestZip.Entry("app.bin", [], method: 8)
            entries[1].payload = bomb
            entries[1].uncompressedSize = UInt32(declared)
            XCTAssertPackageError(.entryTooLarge, TestZip(entries).bytes, entry: "app.bin")
        }
    }

    func testUnsafeNames() {
        for name in ["/abs", "../x", "a\\..\\b", "\\abs", "a/../../b", "C:\\x", ".."] {
            var entries = TestPackages.appEntries()
            entries.append(TestZip.Entry(name, [1, 2, 3]))
            XCTAssertPackageError(.unsafeEntryPath, TestZip(entries).bytes, entry: name)
        }
        XCTAssertTrue(EntryPath.isSafe("dir/app.bin"))
        XCTAssertTrue(EntryPath.isSafe("a..b.bin"))
    }

    /// A NUL inside a name (libzip shows it as another character) is refused as unsafe.
    func testNameWithNUL() {
        for name in ["app.bin\u{0}", "notes\u{0}.txt", "\u{0}"] {
            var entries = TestPackages.appEntries()
            entries.append(TestZip.Entry(name, [1, 2, 3]))
            XCTAssertPackageError(.unsafeEntryPath, TestZip(entries).bytes)
        }
    }

    func testDuplicateNames() {
        var entries = TestPackages.appEntries()
        entries.append(TestZip.Entry("app.bin", [9, 9, 9, 9]))
        XCTAssertPackageError(.duplicateEntry, TestZip(entries).bytes, entry: "app.bin")
    }

    func testUnsupportedMethods() {
        for method: UInt16 in [12, 14, 1, 6, 9, 93] {
            var entries = TestPackages.appEntries()
            entries[1].method = method
            entries[1].payload = TestPackages.firmware
            XCTAssertPackageError(.unsupportedCompression, TestZip(entries).bytes, entry: "app.bin")
        }
    }

    func testEncryptedEntry() {
        var entries = TestPackages.appEntries()
        entries[1].flags = 1
        XCTAssertPackageError(.unsupportedCompression, TestZip(entries).bytes, entry: "app.bin")
    }
}
