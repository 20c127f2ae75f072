import BlueZ
import Foundation
import GATT
import XCTest

/// Where a passkey comes from: a file only its owner reads, the environment, or a program; a
/// failure names the source and never the passkey.
final class PasskeySourceTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "passkeys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    func testAFileOnlyItsOwnerReadsGivesItsFirstLine() async throws {
        let path = try write("passkey", " 004821\nnext line\n", permissions: 0o600)
        let passkey = try await PasskeySource.file(path).passkey(for: "C0:DE:00:00:00:01")
        XCTAssertEqual(passkey, 4821)
    }

    func testAFileOthersMayReadIsRefused() async throws {
        let path = try write("passkey", "314159\n", permissions: 0o640)
        let message = try await failure(.file(path))
        XCTAssertEqual(message, "\(path) may be read by others than its owner: chmod 600 it")
    }

    func testAMissingFileIsNamed() async throws {
        let path = directory.appendingPathComponent("none").path
        let message = try await failure(.file(path))
        XCTAssertTrue(message.contains(path), message)
    }

    func testTheEnvironment() async throws {
        let passkey = try await PasskeySource.environment("DEVICE_PASSKEY").passkey(
            for: "C0:DE:00:00:00:01", environment: ["DEVICE_PASSKEY": "999999"])
        XCTAssertEqual(passkey, 999_999)
        let message = try await failure(.environment("DEVICE_PASSKEY"), environment: [:])
        XCTAssertEqual(message, "the environment variable DEVICE_PASSKEY is not set")
    }

    func testSomethingElseThanSixDigitsIsRefusedWithoutBeingRepeated() async throws {
        for text in ["31415a", "1234567", "", "-12345", "３１４１５９"] {
            let message = try await failure(.environment("P"), environment: ["P": text])
            XCTAssertEqual(
                message,
                "the environment variable P does not hold a passkey: expected 6 digits (000000 to 999999)",
                text)
        }
    }

    /// As SSH_ASKPASS: the program is run when the passkey is needed, with the device's address.
    func testACommandIsRunWithTheDevicesAddress() async throws {
        let program = try write(
            "passkey-for", "#!/bin/sh\n[ \"$1\" = C0:DE:00:00:00:01 ] && echo 314159\n", permissions: 0o700)
        let passkey = try await PasskeySource.command(program).passkey(for: "C0:DE:00:00:00:01")
        XCTAssertEqual(passkey, 314_159)
        let message = try await failure(.command(program), device: "C0:DE:00:00:00:02")
        XCTAssertEqual(message, "the passkey command \(program) failed (exit status 1)")
    }

    func testSourcesDescribeThemselvesWithoutAPasskey() {
        XCTAssertEqual(PasskeySource.file("/etc/k").description, "the passkey file /etc/k")
        XCTAssertEqual(PasskeySource.environment("K").description, "the environment variable K")
        XCTAssertEqual(PasskeySource.command("/bin/k").description, "the passkey command /bin/k")
    }

    private func failure(
        _ source: PasskeySource, device: String = "C0:DE:00:00:00:01", environment: [String: String] = [:]
    ) async throws -> String {
        do {
            _ = try await source.passkey(for: device, environment: environment)
        } catch let error as PasskeySourceError {
            XCTAssertFalse(error.description.contains("314159"), error.description)
            return error.description
        }
        XCTFail("\(source) gave a passkey")
        return ""
    }

    private func write(_ name: String, _ text: String, permissions: Int) throws -> String {
        let path = directory.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), path)
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        return path
    }
}
