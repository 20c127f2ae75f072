import Crypto
import Foundation
import SwiftProtobuf

extension DFUPackage {
    /// A Secure DFU application package made here rather than read: `firmware` with an init
    /// packet as `nrfutil pkg generate` writes one (SHA-256 hash, reversed; CRC boot
    /// validation), unsigned. For benchmarks and tests that need images of a given size; a
    /// bootloader that requires signed applications refuses it.
    public static func unsignedSecureApplication(
        firmware: [UInt8], version: UInt32, hardwareVersion: UInt32 = 52,
        softDeviceRequirements: [UInt32] = [0xB6],
        name: String = "application.bin"
    ) throws(DFUPackageError) -> DFUPackage {
        try secureApplication(
            firmware: firmware, version: version, hardwareVersion: hardwareVersion,
            softDeviceRequirements: softDeviceRequirements, signedBy: nil, name: name)
    }

    /// As `unsignedSecureApplication`, with the init command signed by `key` as nrfutil signs it
    /// (ECDSA P-256 / SHA-256 over the serialized InitCommand, r‖s each little-endian), so that a
    /// bootloader holding the key's public half accepts it.
    public static func secureApplication(
        firmware: [UInt8], version: UInt32, hardwareVersion: UInt32 = 52,
        softDeviceRequirements: [UInt32] = [0xB6], signedBy key: P256.Signing.PrivateKey?,
        name: String = "application.bin"
    ) throws(DFUPackageError) -> DFUPackage {
        var command = Dfu_InitCommand()
        command.fwVersion = version
        command.hwVersion = hardwareVersion
        command.sdReq = softDeviceRequirements
        command.type = .application
        command.sdSize = 0
        command.blSize = 0
        command.appSize = UInt32(firmware.count)
        var hash = Dfu_Hash()
        hash.hashType = .sha256
        hash.hash = Data(SHA256.hash(data: firmware).reversed())
        command.hash = hash
        command.isDebug = false
        var validation = Dfu_BootValidation()
        validation.type = .validateGeneratedCrc
        validation.bytes = Data()
        command.bootValidation = [validation]
        let initPacket: [UInt8]
        do {
            initPacket = try packet(for: command, signedBy: key).serializedBytes()
        } catch {
            throw DFUPackageError(
                .initPacketInvalid, file: name, reason: "cannot encode or sign the init packet: \(error)")
        }
        return try DFUPackage(firmware: firmware, initPacket: initPacket, name: name)
    }

    /// The `dfu.Packet` holding `command`: a plain command, or a signed one.
    private static func packet(for command: Dfu_InitCommand, signedBy key: P256.Signing.PrivateKey?) throws
        -> Dfu_Packet
    {
        var wrapper = Dfu_Command()
        wrapper.opCode = .init_
        wrapper.init_p = command
        var packet = Dfu_Packet()
        guard let key else {
            packet.command = wrapper
            return packet
        }
        let signed: [UInt8] = try command.serializedBytes()
        let raw = Array(try key.signature(for: signed).rawRepresentation)
        var signedCommand = Dfu_SignedCommand()
        signedCommand.command = wrapper
        signedCommand.signatureType = .ecdsaP256Sha256
        signedCommand.signature = Data(raw[0..<32].reversed() + raw[32..<64].reversed())
        packet.signedCommand = signedCommand
        return packet
    }
}
