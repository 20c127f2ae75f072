import CDBus
import XCTest

@testable import DBus

/// What the D-Bus fuzz target (docs/fuzzing.md) found about the message reader, kept as tests.
final class MessageReaderTests: XCTestCase {
    /// A body holding a `h` with no descriptor behind it (the message carries none) reads as a
    /// descriptor of -1, as libdbus reports it, and the writer refuses to send that value on.
    func testUnixFDWithoutDescriptorReadsAsMinusOne() throws {
        // A signal /a a.b.M with signature "h" and a body of one index, 0; no unix_fds field.
        let wire: [UInt8] = [
            0x6C, 0x04, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x37, 0x00, 0x00, 0x00,
            0x01, 0x01, 0x6F, 0x00, 0x02, 0x00, 0x00, 0x00, 0x2F, 0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x02, 0x01, 0x73, 0x00, 0x03, 0x00, 0x00, 0x00, 0x61, 0x2E, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x03, 0x01, 0x73, 0x00, 0x01, 0x00, 0x00, 0x00, 0x4D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x08, 0x01, 0x67, 0x00, 0x01, 0x68, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        let message = try XCTUnwrap(Self.demarshal(wire))
        XCTAssertEqual(message.signature, "h")
        let arguments = message.arguments()
        guard arguments.count == 1, case .unixFD(let descriptor) = arguments[0] else {
            return XCTFail("expected one unix fd, read \(arguments)")
        }
        XCTAssertEqual(descriptor.fileDescriptor, -1)
        XCTAssertThrowsError(
            try Message.signal(path: "/a", interface: "a.b", member: "M", arguments: arguments))
    }

    private static func demarshal(_ wire: [UInt8]) -> Message? {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let raw = wire.withUnsafeBytes { bytes in
            dbus_message_demarshal(bytes.bindMemory(to: CChar.self).baseAddress, Int32(bytes.count), &error)
        }
        return raw.map { Message(taking: $0) }
    }
}
