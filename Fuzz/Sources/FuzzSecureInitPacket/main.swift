// Bytes into the Secure (protobuf dfu.Packet) init-packet decoder, then into the checks against
// an image. The byte ranges it reports must lie inside the packet.
@testable import NordicDFU

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecureInitPacket(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let dat = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let packet = try? SecureInitPacket(decoding: dat) else { return 0 }
    precondition(packet.initCommandRange.upperBound <= dat.count, "InitCommand range outside the packet")
    if let signature = packet.signature {
        precondition(
            signature.offset >= 0 && signature.offset + signature.bytes.count <= dat.count,
            "signature range outside the packet")
    }
    // A one-byte image: the size and hash checks run, and must refuse or accept without trapping.
    _ = try? DFUPackage(firmware: [0xFF], initPacket: dat)
    return 0
}
