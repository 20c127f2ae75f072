import Crypto
import Foundation
import SwiftProtobuf

extension DFUPackage {
    /// A Secure DFU application package made here rather than read: `firmware` with an unsigned
    /// init packet as `nrfutil pkg generate` writes one (SHA-256 hash, reversed; CRC boot
    /// validation). For benchmarks and tests that need images of a given size; a bootloader
    /// that requires signed applications refuses it.
    public static func unsignedSecureApplication(
        firmware: [UInt8], version: UInt32, hardwareVersion: UInt32 = 52,
        softDeviceRequirements: [UInt32] = [0xB6],
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
        var packet = Dfu_Packet()
        packet.command.opCode = .init_
        packet.command.init_p = command
        let initPacket: [UInt8]
        do {
            initPacket = try packet.serializedBytes()
        } catch {
            throw DFUPackageError(
                .initPacketInvalid, file: name, reason: "cannot encode the init packet: \(error)")
        }
        return try DFUPackage(firmware: firmware, initPacket: initPacket, name: name)
    }
}
