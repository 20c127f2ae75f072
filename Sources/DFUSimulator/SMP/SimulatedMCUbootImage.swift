import MCUmgr

/// Builds minimal MCUboot images: a 32-byte header, a body, and a TLV area holding only the
/// hash TLV (what `imgtool sign` writes without a key; SHA-256 unless told otherwise). The simulated SMP device leaves the
/// factory with one; tests and `dfu-sim` users upload others.
public enum SimulatedMCUbootImage {
    /// An image of `version` whose body is `bodySize` bytes derived from `seed` (different seeds
    /// give different hashes); `loadAddress` with the `romFixed` flag links it for one slot, as
    /// direct-XIP images are; `resetVector` is written as the body's second word, where a
    /// Cortex-M image keeps it (an nRF5340 network core image's points into that core's flash).
    public static func make(
        version: MCUbootVersion, bodySize: Int, seed: UInt8 = 0, flags: UInt32 = 0, loadAddress: UInt32 = 0,
        resetVector: UInt32? = nil, hash algorithm: MCUbootHashAlgorithm = .sha256
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(MCUbootHeader.size + bodySize + 40)
        append(MCUbootHeader.magic, to: &bytes)
        append(loadAddress, to: &bytes)
        append(UInt16(MCUbootHeader.size), to: &bytes)  // header size
        append(UInt16(0), to: &bytes)  // protected TLV size
        append(UInt32(bodySize), to: &bytes)
        append(flags, to: &bytes)
        bytes += [version.major, version.minor]
        append(version.revision, to: &bytes)
        append(version.build, to: &bytes)
        append(UInt32(0), to: &bytes)  // pad
        let bodyStart = bytes.count
        bytes += (0..<bodySize).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed) &* 131) }
        if let resetVector, bodySize >= 8 {
            withUnsafeBytes(of: resetVector.littleEndian) {
                bytes.replaceSubrange(bodyStart + 4..<bodyStart + 8, with: $0)
            }
        }
        let hash = algorithm.hash(bytes[...])
        append(UInt16(0x6907), to: &bytes)  // TLV area magic
        append(UInt16(4 + 4 + hash.count), to: &bytes)  // the area's length, its own 4 bytes included
        append(algorithm.tlvKind.rawValue, to: &bytes)  // the hash TLV's type
        append(UInt16(hash.count), to: &bytes)
        bytes += hash
        return bytes
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
