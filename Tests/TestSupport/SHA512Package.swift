import Crypto
import DFUSupport
import Foundation

/// A Secure DFU application package that reads well but whose init packet hashes the image with
/// SHA-512, which Nordic's bootloaders cannot check: every command that updates devices must
/// refuse it (`unsupported_hash_type`) before connecting to any. nrfutil cannot make one, so it
/// is written here; its init packet follows `dfu-cc.proto` (an unsigned `Packet`).
public enum SHA512Package {
    /// The application image: 1 KiB of pseudo-random bytes.
    public static let firmware: [UInt8] = {
        var generator = SplitMix64(seed: 512)
        return generator.bytes(1024)
    }()

    /// The zip's bytes.
    public static var bytes: [UInt8] {
        let manifest = #"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"}}}"#
        return TestZip([
            TestZip.Entry("manifest.json", Array(manifest.utf8)),
            TestZip.Entry("app.bin", firmware),
            TestZip.Entry("app.dat", initPacket),
        ]).bytes
    }

    /// Writes the package into `folder` as `sha512_app.zip` and returns its URL.
    public static func write(into folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("sha512_app.zip")
        try Data(bytes).write(to: url)
        return url
    }

    /// `Packet { command { op_code: INIT, init { fw_version, hw_version 52, sd_req [0xB6],
    /// type APPLICATION, app_size, hash { SHA512, digest } } } }`, digest reversed as nrfutil
    /// writes hashes.
    static var initPacket: [UInt8] {
        let digest = Array(SHA512.hash(data: firmware).reversed())
        let hash = field(1, varint: 4) + field(2, bytes: digest)
        let command =
            field(1, varint: 0x0002_0000) + field(2, varint: 52) + field(3, bytes: varint(0xB6))
            + field(4, varint: 0) + field(7, varint: UInt64(firmware.count)) + field(8, bytes: hash)
        let wrapper = field(1, varint: 1) + field(2, bytes: command)
        return field(1, bytes: wrapper)
    }

    private static func field(_ number: UInt64, varint value: UInt64) -> [UInt8] {
        varint(number << 3) + varint(value)
    }

    private static func field(_ number: UInt64, bytes: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes
    }

    private static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
        return bytes
    }
}
