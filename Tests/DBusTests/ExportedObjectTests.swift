import DBus
import TestSupport
import XCTest

final class ExportedObjectTests: XCTestCase {
    private var bus: TestBus!
    private var server: DBusConnection!
    private var client: DBusConnection!
    private let refusedValue = DBusValue.string("refused")

    override func setUp() async throws {
        bus = try TestBus()
        server = try await bus.connect()
        client = try await bus.connect()
        let refused = refusedValue
        try server.exportObject(
            at: "/dev",
            interfaces: [
                DBusInterface(
                    "org.example.Device",
                    properties: [
                        DBusProperty("Name", value: .string("DfuTarg")),
                        DBusProperty("UUIDs", value: .stringArray([])),
                        DBusProperty(
                            "Alias", value: .string("alias"), access: .readWrite,
                            onSet: { value in
                                if value == refused {
                                    throw DBusError.error(
                                        name: "org.example.Error.Refused", message: "not that one")
                                }
                            }),
                    ])
            ])
    }

    override func tearDown() async throws {
        server?.close()
        client?.close()
        bus?.kill()
        // XCTest keeps every test case object until the run ends; let go of ours now.
        (server, client, bus) = (nil, nil, nil)
    }

    private func properties(_ member: String, _ arguments: [DBusValue], path: String = "/dev") async throws
        -> [DBusValue]
    {
        try await client.call(
            destination: server.uniqueName, path: path, interface: "org.freedesktop.DBus.Properties",
            member: member,
            arguments: arguments, timeout: .seconds(5))
    }

    func testGetAndGetAll() async throws {
        let name = try await properties("Get", [.string("org.example.Device"), .string("Name")])
        XCTAssertEqual(name, [.variant(.string("DfuTarg"))])
        let all = try await properties("GetAll", [.string("org.example.Device")])
        XCTAssertEqual(all.first?.signature, "a{sv}")
        XCTAssertEqual(
            all.first?.stringKeyedDictionary,
            ["Name": .string("DfuTarg"), "UUIDs": .stringArray([]), "Alias": .string("alias")])
        let unknown = await expectDBusError {
            try await properties("Get", [.string("org.example.Device"), .string("X")])
        }
        XCTAssertEqual(unknown?.name, DBusError.Name.unknownProperty)
        let noInterface = await expectDBusError {
            try await properties("GetAll", [.string("org.example.None")])
        }
        XCTAssertEqual(noInterface?.name, DBusError.Name.unknownInterface)
    }

    func testSetChecksAccessTypeAndHook() async throws {
        let changes = try await client.signals(
            matching: DBusMatchRule(
                sender: server.uniqueName, interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged",
                path: "/dev"))
        let inbox = Inbox<DBusSignal>()
        let pump = inbox.pump(changes)
        defer { pump.cancel() }

        let readOnly = await expectDBusError {
            try await properties(
                "Set", [.string("org.example.Device"), .string("Name"), .variant(.string("x"))])
        }
        XCTAssertEqual(readOnly?.name, DBusError.Name.propertyReadOnly)
        let wrongType = await expectDBusError {
            try await properties(
                "Set", [.string("org.example.Device"), .string("Alias"), .variant(.int32(1))])
        }
        XCTAssertEqual(wrongType?.name, DBusError.Name.invalidArgs)
        let refused = await expectDBusError {
            try await properties(
                "Set", [.string("org.example.Device"), .string("Alias"), .variant(refusedValue)])
        }
        XCTAssertEqual(refused, .error(name: "org.example.Error.Refused", message: "not that one"))

        _ = try await properties(
            "Set", [.string("org.example.Device"), .string("Alias"), .variant(.string("new"))])
        XCTAssertEqual(
            try server.propertyValue("Alias", interface: "org.example.Device", path: "/dev"), .string("new"))
        let changed = await inbox.next(within: 5)
        XCTAssertEqual(
            changed?.arguments,
            [
                .string("org.example.Device"), .propertyDictionary([("Alias", .string("new"))]),
                .stringArray([]),
            ])
    }

    func testLocalChangesEmitPropertiesChanged() async throws {
        let changes = try await client.signals(
            matching: DBusMatchRule(
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                arguments: [0: "org.example.Device"]))
        let inbox = Inbox<DBusSignal>()
        let pump = inbox.pump(changes)
        defer { pump.cancel() }

        try server.setProperty(
            "UUIDs", interface: "org.example.Device", path: "/dev", to: .stringArray(["fe59"]))
        // Same value again: no signal.
        try server.setProperty(
            "UUIDs", interface: "org.example.Device", path: "/dev", to: .stringArray(["fe59"]))
        try server.setProperty("Name", interface: "org.example.Device", path: "/dev", to: .string("App"))
        let first = await inbox.next(within: 5)
        XCTAssertEqual(first?.path, "/dev")
        XCTAssertEqual(first?.arguments[1].stringKeyedDictionary, ["UUIDs": .stringArray(["fe59"])])
        let second = await inbox.next(within: 5)
        XCTAssertEqual(second?.arguments[1].stringKeyedDictionary, ["Name": .string("App")])
        let value = try await properties("Get", [.string("org.example.Device"), .string("Name")])
        XCTAssertEqual(value, [.variant(.string("App"))])

        let wrongType = expectSyncDBusError {
            try server.setProperty("Name", interface: "org.example.Device", path: "/dev", to: .int32(1))
        }
        XCTAssertEqual(wrongType?.name, DBusError.Name.invalidArgs)
    }

    func testObjectManager() async throws {
        try server.addObjectManager(at: "/app")
        let service = DBusInterface(
            "org.example.Service",
            properties: [
                DBusProperty("UUID", value: .string("fe59")), DBusProperty("Primary", value: .boolean(true)),
            ])
        try server.exportObject(at: "/app/service0", interfaces: [service])
        try server.exportObject(
            at: "/app/service0/char0",
            interfaces: [
                DBusInterface(
                    "org.example.Characteristic",
                    methods: [DBusMethod("ReadValue", in: "a{sv}", out: "ay") { _ in [.bytes([1, 2, 3])] }],
                    properties: [DBusProperty("Flags", value: .stringArray(["read", "notify"]))])
            ])

        let managed = try await client.call(
            destination: server.uniqueName, path: "/app", interface: "org.freedesktop.DBus.ObjectManager",
            member: "GetManagedObjects")
        XCTAssertEqual(managed.first?.signature, "a{oa{sa{sv}}}")
        let objects = managed.first?.dictionaryEntries ?? []
        XCTAssertEqual(
            objects.map(\.key), [.objectPath("/app/service0"), .objectPath("/app/service0/char0")])
        let serviceInterfaces = objects.first?.value.stringKeyedDictionary
        XCTAssertEqual(
            serviceInterfaces?["org.example.Service"]?.stringKeyedDictionary,
            ["UUID": .string("fe59"), "Primary": .boolean(true)])

        let rule = DBusMatchRule(
            sender: server.uniqueName, interface: "org.freedesktop.DBus.ObjectManager", path: "/app")
        let inbox = Inbox<DBusSignal>()
        let pump = inbox.pump(try await client.signals(matching: rule))
        defer { pump.cancel() }
        try server.exportObject(at: "/app/service1", interfaces: [service])
        let added = await inbox.next(within: 5)
        XCTAssertEqual(added?.member, "InterfacesAdded")
        XCTAssertEqual(added?.arguments.first, .objectPath("/app/service1"))
        XCTAssertEqual(
            added?.arguments.last?.stringKeyedDictionary?["org.example.Service"]?.stringKeyedDictionary?[
                "UUID"], .string("fe59"))
        try server.removeObject(at: "/app/service1")
        let removed = await inbox.next(within: 5)
        XCTAssertEqual(removed?.member, "InterfacesRemoved")
        XCTAssertEqual(
            removed?.arguments, [.objectPath("/app/service1"), .stringArray(["org.example.Service"])])
        let gone = await expectDBusError {
            try await client.call(
                destination: server.uniqueName, path: "/app/service1",
                interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", arguments: [.string("org.example.Service")])
        }
        XCTAssertEqual(gone?.name, DBusError.Name.unknownObject)

        let read = try await client.call(
            destination: server.uniqueName, path: "/app/service0/char0",
            interface: "org.example.Characteristic",
            member: "ReadValue", arguments: [.propertyDictionary([:])])
        XCTAssertEqual(read, [.bytes([1, 2, 3])])
    }

    func testIntrospection() async throws {
        try server.exportObject(
            at: "/dev/child",
            interfaces: [
                DBusInterface(
                    "org.example.Child", methods: [DBusMethod("Do", in: "sa{sv}", out: "h") { _ in [] }],
                    signals: [DBusSignalDeclaration("Done", signature: "b")])
            ])
        let xml =
            try await client.call(
                destination: server.uniqueName, path: "/dev",
                interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect"
            ).first?.stringValue ?? ""
        XCTAssertTrue(xml.contains(#"<interface name="org.example.Device">"#), xml)
        XCTAssertTrue(xml.contains(#"<property name="Alias" type="s" access="readwrite"/>"#), xml)
        XCTAssertTrue(xml.contains(#"<node name="child"/>"#), xml)
        let root =
            try await client.call(
                destination: server.uniqueName, path: "/", interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect"
            ).first?.stringValue ?? ""
        XCTAssertTrue(root.contains(#"<node name="dev"/>"#), root)
        let child =
            try await client.call(
                destination: server.uniqueName, path: "/dev/child",
                interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect"
            ).first?.stringValue ?? ""
        XCTAssertTrue(child.contains(#"<arg type="a{sv}" direction="in"/>"#), child)
        XCTAssertTrue(child.contains(#"<arg type="h" direction="out"/>"#), child)
        XCTAssertTrue(child.contains(#"<signal name="Done">"#), child)
    }
}

/// The `DBusError` a synchronous `body` throws (failing the test when it does not throw).
func expectSyncDBusError(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void)
    -> DBusError?
{
    do {
        try body()
        XCTFail("expected a DBusError", file: file, line: line)
    } catch {
        return error as? DBusError
    }
    return nil
}
