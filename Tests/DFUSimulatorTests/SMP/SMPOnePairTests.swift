import DFUSimulator
import MCUmgr
import XCTest

/// A simulated nRF5340 with one image pair (nordic-devices-current.md §3.1, §7.6): the network
/// core's image goes through image 0's secondary slot, and MCUboot hands it to the network core
/// at the reset instead of swapping it in.
final class SMPOnePairTests: XCTestCase {
    private static func networkImage(_ version: String = "2.0.0") -> [UInt8] {
        SimulatedMCUbootImage.make(
            version: MCUbootVersion(version)!, bodySize: 12_000, seed: 3,
            resetVector: OnePairNetworkCore.flash.lowerBound + 0x2C1)
    }

    private static func device(_ onePair: OnePairNetworkCore) -> SimulatedDeviceConfiguration {
        SMPFixtures.device { $0.networkCoreOnePair = onePair }
    }

    /// Uploads the network core's image, confirms it, resets; returns the list after the reset.
    private static func install(
        _ image: [UInt8], on onePair: OnePairNetworkCore
    ) async throws -> (before: ImageStateResponse, after: ImageStateResponse, client: SMPTestClient) {
        let client = try await SMPTestClient(device(onePair))
        let before = try await client.imageState()
        try await client.upload(image)
        let marked = try ImageStateResponse(
            try await client.send(.imageConfirm(hash: try SMPFixtures.hash(image))))
        XCTAssertEqual(marked.images.last?.slot, 1)
        XCTAssertTrue(marked.images.last?.permanent == true && marked.images.last?.pending == true)
        let after = try await client.resetAndReconnect()
        return (before, try await after.imageState(), after)
    }

    func testTheListNumbersNoImages() async throws {
        let client = try await SMPTestClient(Self.device(.erasesImage))
        let state = try await client.imageState()
        XCTAssertFalse(state.numbersImages, "one updatable image: Zephyr leaves `image` out")
        XCTAssertEqual(state.images.map(\.slot), [0])
    }

    func testNetworkImageIsCopiedAndTheSlotErased() async throws {
        let image = Self.networkImage()
        let (before, after, client) = try await Self.install(image, on: .erasesImage)
        XCTAssertEqual(after.images.map(\.hash), [before.images[0].hash], "the application runs as before")
        XCTAssertTrue(after.images[0].active && after.images[0].confirmed)
        let snapshot = try XCTUnwrap(client.central.snapshot(of: SMPTestClient.address))
        XCTAssertEqual(snapshot.networkCoreHash, try SMPFixtures.hash(image))
        XCTAssertEqual(snapshot.activations, 1)
    }

    func testOlderReleasesLeaveTheImageUnmarked() async throws {
        let image = Self.networkImage()
        let (_, after, client) = try await Self.install(image, on: .keepsImage)
        XCTAssertEqual(after.images.map(\.slot), [0, 1])
        let left = after.images[1]
        XCTAssertEqual(left.hash, try SMPFixtures.hash(image))
        XCTAssertFalse(left.pending || left.permanent || left.confirmed || left.active)
        let snapshot = try XCTUnwrap(client.central.snapshot(of: SMPTestClient.address))
        XCTAssertEqual(snapshot.networkCoreHash, left.hash)
    }

    func testASkippedCopyLeavesTheImageMarked() async throws {
        let image = Self.networkImage()
        let (_, after, client) = try await Self.install(image, on: .skipsCopy)
        XCTAssertEqual(after.images.last?.hash, try SMPFixtures.hash(image))
        XCTAssertTrue(after.images.last?.permanent == true, "the request stays")
        let snapshot = try XCTUnwrap(client.central.snapshot(of: SMPTestClient.address))
        XCTAssertNotEqual(snapshot.networkCoreHash, after.images.last?.hash)
        XCTAssertEqual(snapshot.activations, 0)
    }

    func testAnApplicationImageStillSwaps() async throws {
        let client = try await SMPTestClient(Self.device(.erasesImage))
        let image = SMPFixtures.image("1.1.0")
        let hash = try SMPFixtures.hash(image)
        try await client.upload(image)
        _ = try await client.send(.imageTest(hash: hash))
        let after = try await client.resetAndReconnect()
        let state = try await after.imageState()
        XCTAssertEqual(state.images.first?.hash, hash, "MCUboot swapped the application in")
        XCTAssertFalse(state.images.first?.confirmed ?? true, "on test")
    }
}
