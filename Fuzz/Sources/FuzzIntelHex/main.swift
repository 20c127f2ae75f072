// Text into the Intel HEX reader with the package reader's size limit. An image it returns is cut
// to whole words and never larger than the limit.
@testable import NordicDFU

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntelHex(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let image = try? IntelHex.image(from: text, maximumSize: DFUPackage.maximumEntrySize) {
        precondition(image.count % 4 == 0, "an image of \(image.count) bytes, not whole words")
        precondition(image.count <= DFUPackage.maximumEntrySize, "an image over the limit")
    }
    return 0
}
