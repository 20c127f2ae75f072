// One notification or write into every control-point decoder: the Secure, Legacy and buttonless
// responses a client reads, and the requests the simulated bootloaders read. Whatever decodes must
// encode to bytes that decode to the same value.
import NordicDFU

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponses(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkRoundTrip(bytes, SecureDFUResponse.init(decoding:), \.encoded)
    checkRoundTrip(bytes, LegacyDFUResponse.init(decoding:), \.encoded)
    checkRoundTrip(bytes, ButtonlessDFUResponse.init(decoding:), \.encoded)
    checkRoundTrip(bytes, SecureDFURequest.init(decoding:), \.encoded)
    checkRoundTrip(bytes, LegacyDFURequest.init(decoding:), \.encoded)
    checkRoundTrip(bytes, ButtonlessDFURequest.init(decoding:), \.encoded)
    return 0
}

/// Decodes `bytes`; when that succeeds, the value's encoding must decode to the same value.
func checkRoundTrip<Value: Equatable, Failure: Error>(
    _ bytes: [UInt8], _ decode: ([UInt8]) throws(Failure) -> Value, _ encode: (Value) -> [UInt8]
) {
    guard let value = try? decode(bytes) else { return }
    precondition((try? decode(encode(value))) == value, "\(value) does not survive its own encoding")
}
