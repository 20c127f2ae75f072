import Foundation
import XCTest

/// A bus peer in another process (Python speaking the D-Bus wire protocol on a raw socket)
/// that owns a name, never answers, and says "called" when a call to `Vanish` reaches it, so a
/// test can kill it while that call is pending.
final class VanishingPeer: @unchecked Sendable {
    private let process = Process()
    private let output = Inbox<String>()

    init(busAddress: String, name: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            throw XCTSkip("needs /usr/bin/python3 to run a peer process")
        }
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script, busAddress, name]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
            } else {
                output.put(String(decoding: data, as: UTF8.self))
            }
        }
        try process.run()
    }

    /// Waits until the peer has printed `word`, at most `seconds`.
    func waitFor(_ word: String, within seconds: Double) async -> Bool {
        var seen = ""
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !seen.contains(word) {
            let left = deadline - ContinuousClock.now
            guard left > .zero, let chunk = await output.next(within: Double(left.components.seconds) + 0.5)
            else {
                return false
            }
            seen += chunk
        }
        return true
    }

    /// SIGKILL by pid.
    func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        kill()
    }

    /// Authenticates, says Hello, requests the name (flag DO_NOT_QUEUE) and then only reads.
    private static let script = #"""
        import os, socket, struct, sys

        def pad(buf, n):
            return buf + b"\0" * ((-len(buf)) % n)

        def text(buf, s, short=False):
            data = s.encode()
            if short:
                return buf + bytes([len(data)]) + data + b"\0"
            return pad(buf, 4) + struct.pack("<I", len(data)) + data + b"\0"

        def message(serial, member, signature="", body=b""):
            fields = [(1, "o", "/org/freedesktop/DBus"), (2, "s", "org.freedesktop.DBus"),
                      (3, "s", member), (6, "s", "org.freedesktop.DBus")]
            if signature:
                fields.append((8, "g", signature))
            header = b""
            for code, sig, value in fields:
                header = text(pad(header, 8) + bytes([code]), sig, short=True)
                header = text(header, value, short=(sig == "g"))
            fixed = b"l" + bytes([1, 0, 1]) + struct.pack("<III", len(body), serial, len(header))
            return pad(fixed + header, 8) + body

        address, name = sys.argv[1], sys.argv[2]
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(address.split("unix:path=")[1].split(",")[0])
        sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        if not sock.recv(4096).startswith(b"OK"):
            sys.exit(1)
        sock.sendall(b"BEGIN\r\n" + message(1, "Hello"))
        sock.sendall(message(2, "RequestName", "su", pad(text(b"", name), 4) + struct.pack("<I", 4)))
        while True:
            data = sock.recv(65536)
            if not data:
                break
            if b"Vanish" in data:
                print("called", flush=True)
        """#
}
