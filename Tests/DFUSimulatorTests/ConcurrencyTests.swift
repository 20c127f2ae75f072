import DFUSimulator
import GATT
import NordicDFU
import TestSupport
import XCTest

/// Several devices behind one central, updated at the same time from different tasks.
final class ConcurrencyTests: XCTestCase {
    func testTwoDevicesUpdateConcurrentlyThroughOneCentral() async throws {
        let addresses = [BluetoothAddress.simulatedDevice, BluetoothAddress(0xC0, 0xDE, 0, 0, 0, 0x20)]
        let central = try SimulatedCentral(
            devices: addresses.map { address in
                var configuration = Fixtures.docDevice()
                configuration.address = address
                return configuration
            })
        let images = [Fixtures.image(count: 30000, seed: 7), Fixtures.image(count: 25000, seed: 8)]
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for (address, image) in zip(addresses, images) {
                group.addTask {
                    let client = try await ScriptedClient(central: central, device: .address(address))
                    try await client.subscribe(ScriptedClient.cp)
                    let accepted = try await client.sendSecureInitPacket(try Fixtures.initPacket(for: image))
                    guard accepted == [0x60, 0x04, 0x01] else { return accepted }
                    return try await client.sendSecureImage(image, payload: 20, prn: 6)
                }
            }
            for try await final in group { XCTAssertEqual(final, [0x60, 0x04, 0x01]) }
        }
        for (address, image) in zip(addresses, images) {
            let snapshot = try XCTUnwrap(central.snapshot(of: .address(address)))
            XCTAssertEqual(snapshot.mode, .application, "\(address)")
            XCTAssertEqual(
                snapshot.images[.application]?.sha256, try Fixtures.sha256(image).hexString(), "\(address)")
        }
    }
}
