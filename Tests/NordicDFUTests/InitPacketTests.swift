import Crypto
import Foundation
import XCTest

@testable import NordicDFU

/// Init packets: decoding, and checks against the image they describe.
final class InitPacketTests: XCTestCase {
    private let firmware = TestPackages.firmware

    func testSecureDatNotAProtobuf() {
        for dat: [UInt8] in [[0xFF, 0xFF, 0xFF], Array("hello".utf8), [0x0A, 0x44, 0x08]] {
            XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: dat), entry: "app.dat")
        }
    }

    func testSecureDatWithoutInit() throws {
        var reset = Dfu_Packet()
        reset.command.opCode = .reset
        reset.command.reset.timeout = 1
        XCTAssertPackageError(
            .initPacketInvalid, TestPackages.app(dat: try reset.serializedBytes()), entry: "app.dat")
        var noInitCommand = Dfu_Packet()
        noInitCommand.command.opCode = .init_
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: try noInitCommand.serializedBytes()))
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: try Dfu_Packet().serializedBytes()))
    }

    func testSecureDatWithoutHash() {
        let dat = TestPackages.secureDat(for: firmware) { $0.clearHash() }
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: dat), entry: "app.dat")
    }

    /// A `type` value outside FwType must not read as the proto2 default, APPLICATION.
    func testSecureUnknownFirmwareTypeIsInvalid() throws {
        // Decoding keeps field 4 = 9 among the unknown fields; serializing writes it back.
        let dat = TestPackages.secureDat(for: firmware) { command in
            command.clearType()
            let bytes: [UInt8] = try! command.serializedBytes()
            command = try! Dfu_InitCommand(serializedBytes: bytes + [0x20, 0x09])
        }
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: dat), entry: "app.dat")
        // Unknown fields with other numbers (a newer InitCommand) still read.
        let newer = TestPackages.secureDat(for: firmware) { command in
            let bytes: [UInt8] = try! command.serializedBytes()
            command = try! Dfu_InitCommand(serializedBytes: bytes + [0x58, 0x01])  // field 11
        }
        XCTAssertNoThrow(try readPackage(TestPackages.app(dat: newer)))
    }

    func testSecureDatWithBothCommands() throws {
        var packet = try Dfu_Packet(serializedBytes: TestPackages.secureDat(for: firmware))
        packet.signedCommand.command = packet.command
        packet.signedCommand.signatureType = .ecdsaP256Sha256
        packet.signedCommand.signature = Data(count: 64)
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: try packet.serializedBytes()))
    }

    func testSecureInitGivenTwiceIsRefused() throws {
        // Protobuf would merge two `init` fields; no single byte range would be what is signed.
        let dat = TestPackages.secureDat(for: firmware)
        let command = try XCTUnwrap(ProtobufWire.payload(ofField: 1, in: dat, range: dat.indices))
        let initCommand = try XCTUnwrap(ProtobufWire.payload(ofField: 2, in: dat, range: command))
        let initField = Array(dat[(initCommand.lowerBound - 2)..<initCommand.upperBound])
        var body = Array(dat[command]) + initField
        body.insert(UInt8(body.count), at: 0)
        body.insert(0x0A, at: 0)
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: body), entry: "app.dat")
    }

    func testSecureSizeHashAndTypeMismatch() {
        let size = TestPackages.secureDat(for: firmware) { $0.appSize += 4 }
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: size), entry: "app.dat")
        let hash = TestPackages.secureDat(for: firmware) { $0.hash.hash[0] ^= 1 }
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: hash), entry: "app.dat")
        // The digest in natural order is wrong: Secure stores it reversed.
        let unreversed = TestPackages.secureDat(for: firmware) {
            $0.hash.hash = Data(SHA256.hash(data: self.firmware))
        }
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: unreversed))
        let type = TestPackages.secureDat(for: firmware, type: .bootloader)
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: type), entry: "app.dat")
    }

    /// Every hash type the format defines is read and described; only sha256 passes the check
    /// that comes before an update.
    func testEveryHashTypeIsDescribedAndOnlySHA256CanBeFlashed() throws {
        let digests: [(Dfu_HashType, SecureInitPacket.HashType, Data)] = [
            (.noHash, .none, Data()), (.crc, .crc, Data([1, 2, 3, 4])),
            (.sha128, .sha128, Data(repeating: 7, count: 16)),
            (.sha256, .sha256, Data(SHA256.hash(data: firmware).reversed())),
            (.sha512, .sha512, Data(SHA512.hash(data: firmware).reversed())),
        ]
        for (wire, described, digest) in digests {
            let dat = TestPackages.secureDat(for: firmware) {
                $0.hash.hashType = wire
                $0.hash.hash = digest
            }
            let package = try readPackage(TestPackages.app(dat: dat))
            guard case .secure(let packet) = package.images[0].decodedInitPacket else {
                return XCTFail("not secure")
            }
            XCTAssertEqual(packet.hashType, described)
            XCTAssertEqual(packet.hash, Array(digest))
            if described == .sha256 {
                XCTAssertNoThrow(try package.checkBootloadersCanVerify())
            } else {
                XCTAssertThrowsError(try package.checkBootloadersCanVerify()) { error in
                    let packageError = error as? DFUPackageError
                    XCTAssertEqual(packageError?.kind, .unsupportedHashType)
                    XCTAssertEqual(packageError?.entry, "app.dat")
                    XCTAssertTrue(packageError?.message.contains(described.rawValue) ?? false)
                }
            }
        }
    }

    func testSecureSHA512HashIsChecked() throws {
        let dat = TestPackages.secureDat(for: firmware) {
            $0.hash.hashType = .sha512
            $0.hash.hash = Data(SHA512.hash(data: self.firmware).reversed())
        }
        let package = try readPackage(TestPackages.app(dat: dat))
        guard case .secure(let packet) = package.images[0].decodedInitPacket else {
            return XCTFail("not secure")
        }
        XCTAssertEqual(packet.hashType, .sha512)
        let wrong = TestPackages.secureDat(for: firmware) {
            $0.hash.hashType = .sha512
            $0.hash.hash = Data(SHA256.hash(data: self.firmware).reversed())
        }
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: wrong), entry: "app.dat")
    }

    func testLegacyLayouts() throws {
        for version in LegacyInitPacket.Version.allCases {
            let dat = TestPackages.legacyDat(for: firmware, version: version, sdReq: [0x88, 0x81])
            let package = try readPackage(TestPackages.app(dat: dat, dfuVersion: version.dfuVersion))
            guard case .legacy(let packet) = package.images[0].decodedInitPacket else {
                return XCTFail("not legacy")
            }
            XCTAssertEqual(packet.version, version)
            XCTAssertEqual(packet.deviceType, 0x52)
            XCTAssertEqual(packet.deviceRevision, 1)
            XCTAssertEqual(packet.applicationVersion, 3)
            XCTAssertEqual(packet.softdeviceRequired, [0x88, 0x81])
            XCTAssertEqual(package.applicationVersion, 3)
            switch version {
            case .v0_5, .v0_6:
                XCTAssertEqual(packet.firmwareCRC16, CRC16.checksum(firmware))
                XCTAssertNil(packet.firmwareHash)
            case .v0_7, .v0_8:
                XCTAssertEqual(packet.firmwareLength, 1024)
                XCTAssertEqual(packet.firmwareHash, Array(SHA256.hash(data: firmware)))
                XCTAssertNil(packet.firmwareCRC16)
            }
            XCTAssertEqual(packet.signature != nil, version == .v0_8)
            XCTAssertEqual(packet.extPacketID, version.extPacketID)
        }
    }

    func testLegacyWorkedExampleFromTheProtocolDoc() throws {
        // "123456789" with nrfutil defaults, dfu_version 0.5 and 0.6 (protocol doc 1.6).
        let image = Array("123456789".utf8)
        let v05: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 0xB1, 0x29,
        ]
        let packet = try LegacyInitPacket(decoding: v05, version: .v0_5)
        XCTAssertEqual(packet.firmwareCRC16, 0x29B1)
        XCTAssertEqual(packet.softdeviceRequired, [0xFFFE])
        XCTAssertNoThrow(try packet.check(against: image, crc16: CRC16.checksum(image), sha256: []))
        let v06 = Array(v05[0..<12]) + [0, 0, 0, 0, 0xB1, 0x29]
        XCTAssertEqual(try LegacyInitPacket(decoding: v06, version: .v0_6).firmwareCRC16, 0x29B1)
        XCTAssertEqual(try LegacyInitPacket(inferringVersionOf: v06).version, .v0_6)
    }

    func testLegacyTooShortOrWrongLength() {
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: [0x52, 0x00, 0x01], dfuVersion: 0.5))
        var dat = TestPackages.legacyDat(for: firmware, version: .v0_5)
        dat.removeLast()
        XCTAssertPackageError(
            .initPacketInvalid, TestPackages.app(dat: dat, dfuVersion: 0.5), entry: "app.dat")
        // A 0.7 packet under a manifest that says 0.5.
        let v07 = TestPackages.legacyDat(for: firmware, version: .v0_7)
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: v07, dfuVersion: 0.5))
        // sd_req count that runs past the end.
        var count = TestPackages.legacyDat(for: firmware, version: .v0_5)
        count[8] = 40
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: count, dfuVersion: 0.5))
        // ext_packet_id that is not the layout's.
        var ext = TestPackages.legacyDat(for: firmware, version: .v0_7)
        ext[12] = 2
        XCTAssertPackageError(.initPacketInvalid, TestPackages.app(dat: ext, dfuVersion: 0.7))
    }

    func testLegacyCRCLengthAndHashMismatch() {
        var crc = TestPackages.legacyDat(for: firmware, version: .v0_5)
        crc[crc.count - 1] ^= 0x40
        XCTAssertPackageError(
            .initPacketMismatch, TestPackages.app(dat: crc, dfuVersion: 0.5), entry: "app.dat")
        var crc06 = TestPackages.legacyDat(for: firmware, version: .v0_6)
        crc06[crc06.count - 2] ^= 1
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: crc06, dfuVersion: 0.6))
        var length = TestPackages.legacyDat(for: firmware, version: .v0_7)
        length[16] ^= 1
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: length, dfuVersion: 0.7))
        var hash = TestPackages.legacyDat(for: firmware, version: .v0_7)
        hash[hash.count - 1] ^= 1
        XCTAssertPackageError(.initPacketMismatch, TestPackages.app(dat: hash, dfuVersion: 0.7))
    }
}
