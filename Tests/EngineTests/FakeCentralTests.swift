import DFUSimulator
import GATT
import GATTTesting
import XCTest

/// The fakes of `GATTTesting` change what they say they change, and leave the rest to the
/// central they wrap.
final class FakeCentralTests: XCTestCase {
    private let device = DeviceIdentifier("C0:DE:00:00:00:10")

    private func simulated() throws -> SimulatedCentral {
        try SimulatedCentral(devices: [
            SimulatedDeviceConfiguration(kind: .secureApp, firmwareVersion: "1.0.0")
        ])
    }

    /// Without hooks a link lists the device's own table; the links are counted and seen down
    /// once dropped.
    func testWithoutHooksTheLinksAreTheWrappedCentrals() async throws {
        let own = try await simulated().connect(device, timeout: .seconds(5))
        let central = FakeCentral(try simulated())
        let link = try await central.connect(device, timeout: .seconds(5))
        let listed = try await link.services().map(\.uuid)
        let expected = try await own.services().map(\.uuid)
        XCTAssertEqual(listed, expected)
        XCTAssertEqual(central.connections, 1)
        var up = await central.anyLinkUp
        XCTAssertTrue(up)
        await link.disconnect()
        await own.disconnect()
        up = await central.anyLinkUp
        XCTAssertFalse(up)
    }

    /// A device that refuses for security lets reads pass and refuses writes and subscriptions.
    func testARefusingDeviceReadsButRefusesWritesAndSubscriptions() async throws {
        let central = FakeCentral.refusingForSecurity(try simulated(), failure: .bondLost)
        let link = try await central.connect(device, timeout: .seconds(5))
        let characteristics = try await link.services().flatMap(\.characteristics)
        let readable = try XCTUnwrap(characteristics.first { $0.properties.contains(.read) })
        _ = try await readable.read(timeout: .seconds(5))
        let refusal = GATTError.securityFailed(
            device: link.address.description, failure: .bondLost, reason: "refused")
        let writable = try XCTUnwrap(characteristics.first { $0.properties.contains(.write) })
        do {
            try await writable.write([0], timeout: .seconds(5))
            XCTFail("a write passed")
        } catch let error as GATTError {
            XCTAssertEqual(error, refusal)
        }
        do {
            _ = try await writable.subscribe(timeout: .seconds(5))
            XCTFail("a subscription passed")
        } catch let error as GATTError {
            XCTAssertEqual(error, refusal)
        }
        await link.disconnect()
    }

    /// A vanishing device is connected to as often as it was told, then no more.
    func testAVanishingDeviceRefusesTheConnectionAfterItsLast() async throws {
        let central = FakeCentral.vanishing(try simulated(), afterConnections: 1)
        let first = try await central.connect(device, timeout: .seconds(5))
        await first.disconnect()
        do {
            _ = try await central.connect(device, timeout: .seconds(5))
            XCTFail("connected to a device that vanished")
        } catch GATTError.connectionFailed {
        }
        XCTAssertEqual(central.connections, 1)
    }

    /// Only the link chosen is changed.
    func testOnlyTheChosenLinkIsChanged() async throws {
        let deviceInformation = BluetoothUUID(short: 0x180A)
        let central = FakeCentral.changing(try simulated(), link: 2) {
            FakePeripheral.hiding(deviceInformation, on: $0)
        }
        for expectHidden in [false, true] {
            let link = try await central.connect(device, timeout: .seconds(5))
            let listed = try await link.services().map(\.uuid)
            XCTAssertEqual(listed.contains(deviceInformation), !expectHidden, "\(listed)")
            await link.disconnect()
        }
    }
}
