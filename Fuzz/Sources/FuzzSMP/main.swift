// Bytes into the MCUmgr decoders: the CBOR decoder, the SMP reassembler and frame decoder, the
// response decoders, the MCUboot image reader and the dfu_application.zip manifest reader.
// Whatever CBOR decodes must re-encode to bytes that decode to the same value; the reassembler
// must yield the same frames however the bytes are split; an accepted image must lie inside its
// bytes.
import MCUmgr

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMP(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkCBOR(bytes)
    checkFrames(bytes)
    checkImage(bytes)
    _ = try? DFUApplicationPackage(entries: ["manifest.json": bytes], name: "fuzz.zip")
    return 0
}

func checkCBOR(_ bytes: [UInt8]) {
    guard let value = try? CBORDecoder.decode(bytes) else { return }
    precondition(
        (try? CBORDecoder.decode(value.encoded)) == value, "\(value) does not survive its own encoding")
}

/// The bytes as one notification stream, whole and split in two at a point the first byte picks;
/// every complete frame goes through the response decoders.
func checkFrames(_ bytes: [UInt8]) {
    var whole = SMPReassembler()
    guard let frames = try? whole.append(bytes) else { return }
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var split = SMPReassembler()
    let head = try? split.append(Array(bytes[..<cut]))
    let tail = try? split.append(Array(bytes[cut...]))
    precondition(
        head.flatMap { head in tail.map { head + $0 } } == frames
            && split.bufferedCount == whole.bufferedCount,
        "splitting the stream changed its frames")
    for frame in frames {
        precondition(
            (try? SMPFrame(decoding: frame.encoded)) == frame, "a frame does not survive its encoding")
        guard let response = try? SMPResponse(frame: frame) else { continue }
        _ = try? ImageStateResponse(response)
        _ = try? ImageUploadResponse(response)
        _ = try? MCUmgrParameters(response)
        _ = try? EchoResponse(response)
        _ = response.deviceError?.description
    }
}

/// The fixture images' public keys (Tests/MCUmgrTests/Fixtures), to check signatures with. Kept
/// as text and parsed for each accepted image: a global of parsed keys is reported by
/// LeakSanitizer when the process ends.
let keyTexts = [
    """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEF+PrKrWkUmORfhd6Hb82V6UnNB2n
    MGQXtHVsPzM/Tfl1uqYKH2zUh545Ll5b/NtdlA6VLjYGLqrdI9F5aLJI2A==
    -----END PUBLIC KEY-----
    """,
    """
    -----BEGIN PUBLIC KEY-----
    MCowBQYDK2VwAyEAo9AI0mzNkCoSRgWP3seUeL4HGR8kh7+E10aakBhwwSM=
    -----END PUBLIC KEY-----
    """,
]

func checkImage(_ bytes: [UInt8]) {
    guard let image = try? MCUbootImage(bytes: bytes, name: "fuzz.bin") else { return }
    precondition(image.imageEnd <= bytes.count, "the TLV area ends past the file")
    precondition(image.hash.count == 32, "an image hash is not 32 bytes")
    for text in keyTexts { _ = image.verifySignature(with: try! MCUbootPublicKey(pem: text)) }
}
