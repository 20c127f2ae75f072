import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Several devices behind one central, updated at the same time from different tasks.
final class ConcurrencyTests: XCTestCase {
    func testTwoDevicesUpdateConcurrentlyThroughOneCentral() async throws {
        let addresses = ["C0:DE:00:00:00:10", "C0:DE:00:00:00:20"]
        let central = try SimulatedCentral(
            devices: addresses.map { address in
                var configuration = Fixtures.docDevice()
                configuration.address = BluetoothAddress(address)!
                return configuration
            })
        let images = [Fixtures.image(count: 30000, seed: 7), Fixtures.image(count: 25000, seed: 8)]
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for (address, image) in zip(addresses, images) {
                group.addTask {
                    let client = try await ScriptedClient(central: central, device: DeviceIdentifier(address))
                    try await client.subscribe(ScriptedClient.cp)
                    let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image))
                    guard accepted == [0x60, 0x04, 0x01] else { return accepted }
                    return try await client.sendSecureImage(image, payload: 20, prn: 6)
                }
            }
            for try await final in group { XCTAssertEqual(final, [0x60, 0x04, 0x01]) }
        }
        for (address, image) in zip(addresses, images) {
            let snapshot = try XCTUnwrap(central.snapshot(of: DeviceIdentifier(address)))
            XCTAssertEqual(snapshot.mode, .application, address)
            XCTAssertEqual(
                snapshot.images[.application]?.sha256, try Fixtures.sha256(image).hexString(), address)
        }
    }
}
