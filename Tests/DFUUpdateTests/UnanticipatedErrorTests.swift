import Foundation
import XCTest

@testable import CommandLineContract
@testable import dfu_update

/// docs/cli-contract.md, "Errors": an error no part of `dfu-update` anticipated is still the
/// contract's one line (one JSON object with `--json`), class `internal`, exit 1; never
/// ArgumentParser's "Error: …".
final class UnanticipatedErrorTests: XCTestCase {
    /// An error type no part of the product knows.
    private struct Unforeseen: Error {}

    func testAnUnanticipatedErrorIsOneLineOfClassInternal() throws {
        for json in [true, false] {
            let failure = DFUUpdateCommand.failure(
                for: UnreportedError(error: Unforeseen(), json: json, usageLine: nil))
            XCTAssertEqual(failure.errorClass, "internal")
            XCTAssertEqual(failure.exitCode.rawValue, 1)
            XCTAssertTrue(failure.message.contains("unanticipated"), failure.message)
            let line = failure.line(json: json)
            XCTAssertFalse(line.contains("\n") || line.contains("Error: "), line)
            if json {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let error = object?["error"] as? [String: Any]
                XCTAssertEqual(object?.count, 1, line)
                XCTAssertEqual(error?["class"] as? String, "internal", line)
            } else {
                XCTAssertTrue(line.hasPrefix("error: "), line)
            }
        }
    }
}
