import DFUSimulator
import GATT
import GATTTesting
import XCTest

@testable import DFUFleet

/// The central that hands a probe's link to the update's first connection to its address.
final class HandOverCentralTests: XCTestCase {
    private let device = FleetFixtures.device(0, kind: .secureApp, firmware: "1.0.0")
    private var target: DeviceIdentifier { .address(device.address) }

    /// A central on the one simulated device, counting its connections, and a link it opened.
    private func opened() async throws -> (FakeCentral, any GATTPeripheral) {
        let central = FakeCentral(try SimulatedCentral(devices: [device]))
        return (central, try await central.connect(target, timeout: .seconds(5)))
    }

    func testTheFirstConnectionToItsAddressTakesTheLinkAndCloseLeavesItUp() async throws {
        let (central, probe) = try await opened()
        let handOver = HandOverCentral(central, handing: probe)
        let link = try await handOver.connect(target, timeout: .seconds(5))
        XCTAssertTrue(link === probe)
        await handOver.close()
        let up = await link.isConnected
        XCTAssertTrue(up, "close() dropped a link the update had taken")
        XCTAssertEqual(central.connections, 1)
        await link.disconnect()
    }

    func testALinkThatDroppedIsConnectedAnew() async throws {
        let (central, probe) = try await opened()
        await probe.disconnect()
        let link = try await HandOverCentral(central, handing: probe).connect(target, timeout: .seconds(5))
        XCTAssertFalse(link === probe)
        let up = await link.isConnected
        XCTAssertTrue(up)
        XCTAssertEqual(central.connections, 2)
        await link.disconnect()
    }

    func testALinkNobodyTookIsClosed() async throws {
        let (central, probe) = try await opened()
        await HandOverCentral(central, handing: probe).close()
        let linkUp = await central.anyLinkUp
        XCTAssertFalse(linkUp)
    }
}
