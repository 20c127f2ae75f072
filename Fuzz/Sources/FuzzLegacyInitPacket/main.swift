// Bytes into the Legacy (packed struct) init-packet decoder: once with the layout inferred from
// the length, as for a bare `.dat`, and once with each layout a manifest may name.
@testable import NordicDFU

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLegacyInitPacket(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let dat = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let packet = try? LegacyInitPacket(inferringVersionOf: dat) {
        precondition(
            (try? LegacyInitPacket(decoding: dat, version: packet.version)) == packet,
            "the inferred layout does not decode the packet the same way")
    }
    for version in LegacyInitPacket.Version.allCases {
        if let packet = try? LegacyInitPacket(decoding: dat, version: version) {
            precondition(packet.version == version)
            _ = try? packet.check(against: [0xFF], crc16: 0, sha256: [])
        }
    }
    return 0
}
