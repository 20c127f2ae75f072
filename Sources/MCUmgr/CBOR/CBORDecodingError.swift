/// Bytes that are not one well-formed CBOR item of the subset ``CBORValue`` holds.
public struct CBORDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The bytes end inside an item, or a length reaches past their end.
        case truncated
        /// Bytes follow the one item.
        case trailingBytes
        /// Additional information 28, 29 or 30, which RFC 8949 reserves.
        case reservedAdditionalInformation
        /// Additional information 31 (indefinite length) on an integer or a tag.
        case indefiniteLengthNotAllowed
        /// An argument that a shorter head would hold (e.g. `18 05` for 5).
        case nonShortestEncoding
        /// A tag, a float, `undefined` or another simple value: outside the subset.
        case unsupportedItem
        /// A text string that is not UTF-8.
        case invalidUTF8
        /// More nested arrays, maps or indefinite strings than the decoder's limit.
        case tooDeep
        /// A map names a key twice.
        case duplicateKey
        /// A "break" (0xFF) outside an indefinite-length item, or in the middle of a map entry.
        case unexpectedBreak
        /// A chunk of an indefinite-length string that is not a definite string of its type.
        case invalidChunk
    }

    public var kind: Kind
    /// The offset of the byte where decoding stopped.
    public var offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch kind {
        case .truncated: what = "the bytes end inside an item"
        case .trailingBytes: what = "bytes follow the item"
        case .reservedAdditionalInformation: what = "reserved additional information (28-30)"
        case .indefiniteLengthNotAllowed: what = "indefinite length on an integer or tag"
        case .nonShortestEncoding: what = "an argument not in its shortest form"
        case .unsupportedItem: what = "a tag, float or simple value outside the subset"
        case .invalidUTF8: what = "a text string that is not UTF-8"
        case .tooDeep: what = "nested too deep"
        case .duplicateKey: what = "a map names a key twice"
        case .unexpectedBreak: what = "an unexpected break"
        case .invalidChunk: what = "an indefinite-length string chunk of the wrong type"
        }
        return "CBOR: \(what) at byte \(offset)"
    }
}
