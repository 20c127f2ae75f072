import Foundation
import NordicDFU
import XCTest

/// The fixture corpus (`Tests/Fixtures` in the repository): real packages made by
/// Nordic's tools, each with a JSON sidecar of the facts a reader must recover. The one way the
/// test targets find it; a missing fixture fails a test, never skips it.
public enum Fixtures {
    /// `Tests/Fixtures`.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures")

    /// The fixture directory; a missing corpus is a failure, never a skip.
    public static func require() throws -> URL {
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path)
        else {
            throw FixtureMissing(path: directory.path)
        }
        return directory
    }

    /// Every sidecar (`*.json` beside a `.zip`) under the corpus, sorted by path.
    public static func sidecars() throws -> [URL] {
        let root = try require()
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
        return walker.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "json" && !$0.path.contains("/tools/") }
            .filter {
                FileManager.default.fileExists(
                    atPath: $0.deletingPathExtension().appendingPathExtension("zip").path)
            }
            .sorted { $0.path < $1.path }
    }

    /// Every fixture package.
    public static func packages() throws -> [URL] {
        try sidecars().map { $0.deletingPathExtension().appendingPathExtension("zip") }
    }

    public static func url(_ relativePath: String) throws -> URL {
        try require().appendingPathComponent(relativePath)
    }

    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }

    public static func publicKeyPEM() throws -> DFUPublicKey {
        try DFUPublicKey(contentsOf: url("keys/dfu_test_key_public.pem"))
    }

    public static func publicKeyHex() throws -> DFUPublicKey {
        try DFUPublicKey(contentsOf: url("keys/dfu_test_key_public_hex.txt"))
    }
}

/// A parsed sidecar, read with typed accessors that fail the test on a wrong type.
public struct JSONObject {
    public let values: [String: Any]

    public init(_ any: Any?) throws {
        values = try XCTUnwrap(any as? [String: Any], "expected a JSON object")
    }

    public init(contentsOf url: URL) throws {
        try self.init(try JSONSerialization.jsonObject(with: Data(contentsOf: url)))
    }

    public func has(_ key: String) -> Bool { values[key] != nil && !(values[key] is NSNull) }
    public func isNull(_ key: String) -> Bool { values[key] is NSNull }
    public func string(_ key: String) throws -> String { try XCTUnwrap(values[key] as? String, key) }
    public func int(_ key: String) throws -> Int { try XCTUnwrap((values[key] as? NSNumber)?.intValue, key) }
    public func double(_ key: String) throws -> Double {
        try XCTUnwrap((values[key] as? NSNumber)?.doubleValue, key)
    }
    public func bool(_ key: String) throws -> Bool { try XCTUnwrap(values[key] as? Bool, key) }
    public func object(_ key: String) throws -> JSONObject { try JSONObject(values[key]) }
    public func ints(_ key: String) throws -> [Int] {
        try XCTUnwrap(values[key] as? [Any], key).map { try XCTUnwrap(($0 as? NSNumber)?.intValue) }
    }
    public func strings(_ key: String) throws -> [String] { try XCTUnwrap(values[key] as? [String], key) }
    public func objects(_ key: String) throws -> [JSONObject] {
        try XCTUnwrap(values[key] as? [Any], key).map { try JSONObject($0) }
    }
}

extension Sequence<UInt8> {
    /// Lower-case hex, two digits a byte.
    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// A fixture the repository should hold is missing: the test fails (it is not skipped).
public struct FixtureMissing: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "fixture \(path) is missing from the repository (Tests/Fixtures)" }
}
