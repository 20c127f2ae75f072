import Crypto
import DFUSupport
import Foundation
import GATT
import TestSupport
import XCTest

@testable import NordicDFU

/// Builders for packages made in the tests, valid unless told otherwise.
enum TestPackages {
    /// A pseudo-random 1 KiB application image.
    static let firmware: [UInt8] = {
        var generator = SplitMix64(seed: 42)
        return generator.bytes(1024)
    }()

    /// A Secure init packet for `firmware`, as nrfutil writes it; `edit` changes the InitCommand
    /// first, `signedBy` signs it.
    static func secureDat(
        for firmware: [UInt8], type: Dfu_FwType = .application, signedBy key: P256.Signing.PrivateKey? = nil,
        edit: (inout Dfu_InitCommand) -> Void = { _ in }
    ) -> [UInt8] {
        var command = Dfu_InitCommand()
        command.fwVersion = 7
        command.hwVersion = 52
        command.sdReq = [0xB6]
        command.type = type
        command.sdSize = type == .softdevice ? UInt32(firmware.count) : 0
        command.blSize = type == .bootloader ? UInt32(firmware.count) : 0
        command.appSize = type == .application ? UInt32(firmware.count) : 0
        var hash = Dfu_Hash()
        hash.hashType = .sha256
        hash.hash = Data(SHA256.hash(data: firmware).reversed())
        command.hash = hash
        command.isDebug = false
        edit(&command)
        var wrapper = Dfu_Command()
        wrapper.opCode = .init_
        wrapper.init_p = command
        var packet = Dfu_Packet()
        if let key {
            let signed = try! command.serializedBytes() as [UInt8]
            let raw = Array(try! key.signature(for: signed).rawRepresentation)
            var signedCommand = Dfu_SignedCommand()
            signedCommand.command = wrapper
            signedCommand.signatureType = .ecdsaP256Sha256
            signedCommand.signature = Data(raw[0..<32].reversed() + raw[32..<64].reversed())
            packet.signedCommand = signedCommand
        } else {
            packet.command = wrapper
        }
        return try! packet.serializedBytes()
    }

    /// A Legacy init packet for `firmware` in the layout of `version`; 0.8 is signed by `key`.
    static func legacyDat(
        for firmware: [UInt8], version: LegacyInitPacket.Version, sdReq: [UInt16] = [0xFFFE],
        applicationVersion: UInt32 = 3, signedBy key: P256.Signing.PrivateKey? = nil
    ) -> [UInt8] {
        var dat: [UInt8] = []
        dat.le16(0x0052)
        dat.le16(0x0001)
        dat.le32(applicationVersion)
        dat.le16(UInt16(sdReq.count))
        for id in sdReq { dat.le16(id) }
        switch version {
        case .v0_5:
            dat.le16(CRC16.checksum(firmware))
        case .v0_6:
            dat.le32(0)
            dat.le16(CRC16.checksum(firmware))
        case .v0_7, .v0_8:
            dat.le32(version == .v0_7 ? 1 : 2)
            dat.le32(UInt32(firmware.count))
            dat += Array(SHA256.hash(data: firmware))
        }
        if version == .v0_8 {
            let signer = key ?? P256.Signing.PrivateKey()
            dat += Array(try! signer.signature(for: dat).rawRepresentation)
        }
        return dat
    }

    /// `manifest.json` bytes for `images` (kind → object), Legacy when `dfuVersion` is given.
    static func manifest(_ images: [String: Any], dfuVersion: Double? = nil) -> [UInt8] {
        var manifest = images
        if let dfuVersion { manifest["dfu_version"] = dfuVersion }
        return Array(
            try! JSONSerialization.data(withJSONObject: ["manifest": manifest], options: [.sortedKeys]))
    }

    /// The entries of an application-only package.
    static func appEntries(
        firmware: [UInt8] = firmware, dat: [UInt8]? = nil, dfuVersion: Double? = nil
    ) -> [TestZip.Entry] {
        let initPacket =
            dat ?? (dfuVersion == nil ? secureDat(for: firmware) : legacyDat(for: firmware, version: .v0_5))
        return [
            TestZip.Entry(
                "manifest.json",
                manifest(
                    ["application": ["bin_file": "app.bin", "dat_file": "app.dat"]], dfuVersion: dfuVersion)),
            TestZip.Entry("app.bin", firmware),
            TestZip.Entry("app.dat", initPacket),
        ]
    }

    /// An application-only package.
    static func app(firmware: [UInt8] = firmware, dat: [UInt8]? = nil, dfuVersion: Double? = nil) -> [UInt8] {
        TestZip(appEntries(firmware: firmware, dat: dat, dfuVersion: dfuVersion)).bytes
    }
}

/// Reads `zip` and asserts it is refused with `kind`, naming the file (and `entry`, if given).
func XCTAssertPackageError(
    _ kind: DFUPackageError.Kind, _ zip: [UInt8], entry: String? = nil,
    file: StaticString = #filePath, line: UInt = #line
) {
    do {
        let package = try DFUPackage(zipData: Data(zip), name: "test.zip")
        XCTFail("expected \(kind.rawValue), read \(package.images.count) image(s)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.kind, kind, error.message, file: file, line: line)
        XCTAssertTrue(error.message.hasPrefix("test.zip"), error.message, file: file, line: line)
        if let entry {
            XCTAssertEqual(error.entry, entry, error.message, file: file, line: line)
        }
    }
}

/// Reads `zip`, failing the test on an error.
func readPackage(_ zip: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> DFUPackage {
    do {
        return try DFUPackage(zipData: Data(zip), name: "test.zip")
    } catch {
        XCTFail("\(error)", file: file, line: line)
        throw error
    }
}
