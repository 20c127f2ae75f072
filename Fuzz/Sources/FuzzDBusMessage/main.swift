// Wire bytes of a D-Bus message, unmarshalled by libdbus (which validates them, as it does every
// message it receives), into our reader. What the reader makes of a body must be writable again:
// a signal carrying the same arguments has the same signature. Bytes carry no file descriptors,
// so every `h` reads as libdbus's -1, which cannot be sent: bodies holding one are only read.
import CDBus

@testable import DBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count <= Int(Int32.max) else { return 0 }
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    guard
        let raw = dbus_message_demarshal(
            start.assumingMemoryBound(to: CChar.self), Int32(count), &error)
    else { return 0 }
    let message = Message(taking: raw)
    _ = (message.path, message.interface, message.member, message.sender, message.destination)
    if message.isError { _ = message.asError() }
    let arguments = message.arguments()
    guard !arguments.contains(where: holdsUnixFD) else { return 0 }
    let copy = try? Message.signal(
        path: "/fuzz", interface: "fuzz.Fuzz", member: "Echo", arguments: arguments)
    precondition(copy?.signature == message.signature, "the arguments read cannot be written back")
    return 0
}

/// Whether `value` is or contains a `h`, at any depth (variants included).
func holdsUnixFD(_ value: DBusValue) -> Bool {
    switch value {
    case .unixFD: true
    case .array(_, let values), .structure(let values): values.contains(where: holdsUnixFD)
    case .dictionary(_, _, let entries): entries.contains { holdsUnixFD($0.key) || holdsUnixFD($0.value) }
    case .variant(let inner): holdsUnixFD(inner)
    default: false
    }
}
