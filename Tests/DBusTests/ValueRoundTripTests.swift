import DBus
import TestSupport
import XCTest

final class ValueRoundTripTests: TwoConnectionTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try server.exportObject(at: "/echo", interfaces: [echoInterface])
    }

    private func assertRoundTrip(_ value: DBusValue, file: StaticString = #filePath, line: UInt = #line)
        async throws
    {
        let echoed = try await client.echo(.variant(value), on: server.uniqueName)
        XCTAssertEqual(echoed, .variant(value), "round trip of \(value.signature)", file: file, line: line)
    }

    func testBasicTypes() async throws {
        let values: [DBusValue] = [
            .byte(0), .byte(255), .boolean(true), .boolean(false),
            .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(-1), .uint32(.max),
            .int64(.min), .int64(.max), .uint64(.max), .double(-0.5), .double(1e300), .double(.infinity),
            .string(""), .string("héllo wörld ✓ 🚀"), .objectPath("/"),
            .objectPath("/org/bluez/hci0/dev_AA_BB"),
            .signature(""), .signature("a{oa{sa{sv}}}"),
        ]
        for value in values {
            try await assertRoundTrip(value)
        }
    }

    func testContainers() async throws {
        let nested: DBusValue = .array(
            elementSignature: "as", [.stringArray(["a", "b"]), .stringArray([]), .stringArray(["c"])])
        let structure: DBusValue = .structure([
            .int32(1), .structure([.string("inner"), .bytes([1, 2, 3])]), .variant(.uint16(7)),
        ])
        let properties: DBusValue = .propertyDictionary([
            ("Name", .string("DfuTarg")), ("RSSI", .int16(-60)), ("UUIDs", .stringArray(["fe59"])),
            (
                "ManufacturerData",
                .dictionary(
                    keySignature: "q", valueSignature: "v",
                    [
                        DBusDictionaryEntry(key: .uint16(0x59), value: .variant(.bytes([0xAA, 0xBB])))
                    ])
            ),
            ("Nested", .variant(.variant(.boolean(true)))),
        ])
        let managed: DBusValue = .dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            [
                DBusDictionaryEntry(
                    key: .objectPath("/org/bluez/hci0"),
                    value: .dictionary(
                        keySignature: "s", valueSignature: "a{sv}",
                        [DBusDictionaryEntry(key: .string("org.bluez.Adapter1"), value: properties)]))
            ])
        for value in [
            nested, structure, properties, managed,
            .array(
                elementSignature: "(ii)",
                [
                    .structure([.int32(1), .int32(2)]), .structure([.int32(3), .int32(4)]),
                ]),
        ] {
            try await assertRoundTrip(value)
        }
    }

    func testEmptyContainersKeepTheirTypes() async throws {
        let empties: [DBusValue] = [
            .bytes([]), .stringArray([]), .array(elementSignature: "a{sv}", []),
            .array(elementSignature: "(ii)", []),
            .array(elementSignature: "ay", []), .array(elementSignature: "v", []),
            .dictionary(keySignature: "s", valueSignature: "v", []),
            .dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", []),
        ]
        for value in empties {
            try await assertRoundTrip(value)
        }
        let echoed = try await client.echo(
            .variant(.array(elementSignature: "a{sv}", [])), on: server.uniqueName)
        XCTAssertEqual(echoed?.unwrapped.signature, "aa{sv}")
    }

    func testByteArraysUseOneRepresentation() async throws {
        let spelledOut = DBusValue.array(elementSignature: "y", [.byte(1), .byte(2)])
        let echoed = try await client.echo(spelledOut, on: server.uniqueName, member: "EchoBytes")
        XCTAssertEqual(echoed, .bytes([1, 2]))
        XCTAssertEqual(spelledOut.bytes, [1, 2])
    }

    func testLargeByteArray() async throws {
        let large = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let echoed = try await client.echo(.bytes(large), on: server.uniqueName, member: "EchoBytes")
        XCTAssertEqual(echoed?.bytes?.count, large.count)
        XCTAssertEqual(echoed?.bytes, large)
    }

    func testAccessors() {
        let properties: DBusValue = .propertyDictionary([
            "Address": .string("AA:BB"), "Connected": .boolean(true),
        ])
        XCTAssertEqual(properties.signature, "a{sv}")
        XCTAssertEqual(properties.stringKeyedDictionary?["Address"], .string("AA:BB"))
        XCTAssertEqual(properties.stringKeyedDictionary?["Connected"]?.boolValue, true)
        XCTAssertEqual(DBusValue.variant(.uint16(512)).integerValue, 512)
        XCTAssertEqual(DBusValue.objectPathArray(["/a"]).stringArrayValue, ["/a"])
        XCTAssertEqual(DBusValue.structure([.int32(1)]).structFields, [.int32(1)])
        XCTAssertNil(DBusValue.string("x").bytes)
        XCTAssertEqual(
            [DBusValue.string("s"), .propertyDictionary([:]), .stringArray([])].dbusSignature, "sa{sv}as")
    }

    func testSignatureSplitting() {
        XCTAssertEqual(DBusSignature.split("sa{sv}as"), ["s", "a{sv}", "as"])
        XCTAssertEqual(DBusSignature.split("(h q)"), nil)
        XCTAssertEqual(DBusSignature.split("(hq)a(ii)"), ["(hq)", "a(ii)"])
        XCTAssertEqual(DBusSignature.split(""), [])
        XCTAssertNil(DBusSignature.split("a{vs}"))
    }

    func testInvalidValuesAreRejectedBeforeSending() async throws {
        let invalid: [DBusValue] = [
            .structure([]), .objectPath("relative"), .objectPath("/trailing/"), .signature("a{"),
            .array(elementSignature: "s", [.int32(1)]), .array(elementSignature: "{sv}", []),
            .dictionary(keySignature: "v", valueSignature: "s", []),
            .dictionary(
                keySignature: "s", valueSignature: "v",
                [DBusDictionaryEntry(key: .int32(1), value: .variant(.byte(1)))]),
            .string("nul\0inside"),
        ]
        for value in invalid {
            let error = await expectDBusError {
                try await client.echo(.variant(value), on: server.uniqueName)
            }
            XCTAssertEqual(error?.name, DBusError.Name.invalidArgs, "\(value)")
        }
    }
}
