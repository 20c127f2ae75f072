import DFUSupport
import FirmwareUpdate
import Foundation
import NordicDFU

/// What `inspect` says about a Nordic DFU package: the contract's JSON object, or a table for people.
struct NordicPackageReport {
    var package: DFUPackage
    /// The path as the user gave it.
    var file: String
    var key: DFUPublicKey?

    // MARK: - JSON

    var json: JSONValue {
        .object([
            ("file", .string(file)),
            ("format", .string(package.format.rawValue)),
            ("dfu_version", package.dfuVersion.map(JSONValue.double) ?? .null),
            ("images", .array(package.images.map(imageJSON))),
        ])
    }

    private func imageJSON(_ image: DFUImage) -> JSONValue {
        .object([
            ("type", .string(image.kind.rawValue)),
            ("bin_file", .string(image.binName)),
            ("dat_file", .optional(image.datName)),
            ("size", .int(image.firmware.count)),
            ("crc32", .int(Int(image.crc32))),
            ("crc16", .int(Int(image.crc16))),
            ("sha256", .string(image.sha256.hexString())),
            ("sd_size", .optional(image.sdSize)),
            ("bl_size", .optional(image.blSize)),
            ("init_packet", initPacketJSON(image)),
        ])
    }

    private func initPacketJSON(_ image: DFUImage) -> JSONValue {
        guard let dat = image.initPacket, let decoded = image.decodedInitPacket else { return .null }
        var members: [(String, JSONValue)] = [
            ("size", .int(dat.count)),
            ("sha256", .string((image.initPacketSHA256 ?? []).hexString())),
            ("signed", .bool(image.isSigned)),
            ("signature_valid", key.flatMap { image.verifySignature(with: $0) }.map(JSONValue.bool) ?? .null),
        ]
        switch decoded {
        case .secure(let packet):
            let bootValidity = key.map { image.verifyBootValidation(with: $0) }
            members += [
                ("fw_version", .int(Int(packet.fwVersion))),
                ("hw_version", .int(Int(packet.hwVersion))),
                ("sd_req", .array(packet.sdReq.map { .int(Int($0)) })),
                ("type", .string(packet.type.rawValue)),
                ("sd_size", .int(Int(packet.sdSize))),
                ("bl_size", .int(Int(packet.blSize))),
                ("app_size", .int(Int(packet.appSize))),
                ("hash_type", .string(packet.hashType.rawValue)),
                ("hash", .string(packet.hash.hexString())),
                ("is_debug", .bool(packet.isDebug)),
                (
                    "boot_validation",
                    .array(
                        packet.bootValidation.enumerated().map { index, validation in
                            .object([
                                ("type", .string(validation.type.rawValue)),
                                ("bytes", .string(validation.bytes.hexString())),
                                ("signature_valid", bootValidity?[index].map(JSONValue.bool) ?? .null),
                            ])
                        })
                ),
            ]
        case .legacy(let packet):
            members += [
                ("device_type", .int(Int(packet.deviceType))),
                ("device_revision", .int(Int(packet.deviceRevision))),
                ("application_version", .int(Int(packet.applicationVersion))),
                ("sd_req", .array(packet.softdeviceRequired.map { .int(Int($0)) })),
                ("ext_packet_id", .optional(packet.extPacketID)),
                ("crc16", .optional(packet.firmwareCRC16)),
                ("firmware_length", .optional(packet.firmwareLength)),
                ("firmware_hash", .optional(packet.firmwareHash.map { $0.hexString() })),
            ]
        }
        return .object(members)
    }

    // MARK: - Table

    var table: String {
        let protocolName = package.format == .secure ? "Secure DFU" : "Legacy DFU"
        let version = package.dfuVersion.map { String(format: " (dfu_version %.1f)", $0) } ?? ""
        var lines = [
            "\(file): \(protocolName) package\(version), \(package.images.count) image(s), in send order"
        ]
        let header = ["#", "type", "bin / dat", "size", "CRC32", "version", "sd_req", "init packet"]
        let rows = package.images.enumerated().map { index, image in
            [
                "\(index + 1)", image.kind.rawValue, "\(image.binName) / \(image.datName ?? "-")",
                sizeText(image), String(format: "0x%08x", image.crc32),
                versionText(image),
                sdReqText(image), signatureText(image),
            ]
        }
        lines += TextTable.lines(header: header, rows: rows)
        return lines.joined(separator: "\n")
    }

    private func sizeText(_ image: DFUImage) -> String {
        guard let sd = image.sdSize, let bl = image.blSize else { return "\(image.firmware.count)" }
        return "\(image.firmware.count) (SD \(sd) + BL \(bl))"
    }

    private func sdReqText(_ image: DFUImage) -> String {
        let ids: [UInt32]
        switch image.decodedInitPacket {
        case .secure(let packet): ids = packet.sdReq
        case .legacy(let packet): ids = packet.softdeviceRequired.map(UInt32.init)
        case nil: return "-"
        }
        return ids.map { String(format: "0x%X", $0) }.joined(separator: ",")
    }

    /// An application's version as x.y.z, as flash and the fleet print it (the JSON keeps the
    /// integer); a bootloader's as the integer nrfutil takes.
    private func versionText(_ image: DFUImage) -> String {
        guard let version = image.firmwareVersion, version != .max else { return "-" }
        return image.kind == .application ? DFUFirmwareVersion(number: version).description : String(version)
    }

    private func signatureText(_ image: DFUImage) -> String {
        guard image.initPacket != nil else { return "none" }
        guard image.isSigned else { return "unsigned" }
        switch key.flatMap({ image.verifySignature(with: $0) }) {
        case true?: return "signed, signature valid"
        case false?: return "signed, signature INVALID for this key"
        case nil: return "signed (give --public-key to check)"
        }
    }
}
