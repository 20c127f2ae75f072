import DFUSimulator
import GATT
import MCUmgr
import XCTest

/// Image upload as Zephyr's `img_mgmt_upload` / `img_mgmt_upload_inspect` handle it.
final class SMPUploadTests: XCTestCase {
    func testChunkAtAnotherOffsetIsAnsweredWithTheExpectedOffset() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let image = SMPFixtures.image()
        let first = try await client.upload(image, stopAfter: 1)
        let expected = first.offset
        XCTAssertGreaterThan(expected, 0)
        let skipped = ImageUploadChunk(
            offset: expected + 100, data: Array(image[Int(expected) + 100..<Int(expected) + 150]))
        let answer = try ImageUploadResponse(try await client.send(.imageUpload(skipped)))
        XCTAssertEqual(answer.offset, expected, "dropped, answered with success and the offset expected")
        let again = try await client.send(.imageUpload(skipped))
        XCTAssertNil(again.deviceError)
    }

    func testChunkWithoutUploadInProgressIsAnsweredWithOffsetZero() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let answer = try ImageUploadResponse(
            try await client.send(.imageUpload(ImageUploadChunk(offset: 512, data: [1, 2, 3]))))
        XCTAssertEqual(answer.offset, 0)
    }

    func testResumeAfterADroppedLinkWithTheSameSHA() async throws {
        let central = try SimulatedCentral(devices: [SMPFixtures.device(faults: [.disconnectAt(bytes: 5000)])]
        )
        let client = try await SMPTestClient(central: central)
        let image = SMPFixtures.image()
        do {
            try await client.upload(image)
            XCTFail("disconnect-at drops the link")
        } catch SMPTestClientError.streamEnded {
        } catch GATTError.disconnected {}
        let again = try await SMPTestClient(central: central)
        let resumed = try await again.upload(image, stopAfter: 1)
        XCTAssertGreaterThanOrEqual(resumed.offset, 5000, "the first chunk with the same sha resumes")
        XCTAssertLessThan(Int(resumed.offset), image.count)
        let done = try await again.upload(image)
        XCTAssertEqual(Int(done.offset), image.count)
        let state = try await again.imageState()
        XCTAssertEqual(state.images.last?.hash, try SMPFixtures.hash(image))
    }

    func testWithoutSHAOrAfterAResetTheUploadStartsOver() async throws {
        let central = try SimulatedCentral(devices: [SMPFixtures.device()])
        let client = try await SMPTestClient(central: central)
        let image = SMPFixtures.image()
        let partial = try await client.upload(image, stopAfter: 3000)
        XCTAssertGreaterThanOrEqual(partial.offset, 3000)
        let noSHA = try await client.upload(image, sha: false, stopAfter: 1)
        XCTAssertLessThan(noSHA.offset, 400, "an upload without sha cannot resume")
        _ = try await client.upload(image, stopAfter: 3000)
        let rebooted = try await client.resetAndReconnect()
        let restarted = try await rebooted.upload(image, stopAfter: 1)
        XCTAssertLessThan(restarted.offset, 400, "the upload state is RAM: a reset loses it")
    }

    func testFirstChunkRefusals() async throws {
        let client = try await SMPTestClient(
            SMPFixtures.device(factoryVersion: "2.0.0") { $0.slotSize = 16384 })
        let large = SMPFixtures.image("3.0.0", bodySize: 20_000)
        try await client.expectImageError(first(large), .invalidImageTooLarge)
        let older = SMPFixtures.image("2.0.0", bodySize: 1000)
        try await client.expectImageError(first(older, upgrade: true), .currentVersionIsNewer)
        var noMagic = older
        noMagic[0] ^= 0xFF
        try await client.expectImageError(first(noMagic), .invalidImageHeaderMagic)
        try await client.expectImageError(first(Array(older[..<20])), .invalidImageHeader)
        var noLength = ImageUploadChunk(first: Array(older[..<100]), start: .init(length: 1000, sha256: nil))
        noLength.start = nil  // off 0 without len
        try await client.expectImageError(.imageUpload(noLength), .invalidLength)
        let small = SMPFixtures.image("2.1.0", bodySize: 100)
        let started = try ImageUploadResponse(try await client.send(first(small, count: 64)))
        XCTAssertEqual(started.offset, 64)
        let tooMuch = ImageUploadChunk(offset: 64, data: [UInt8](repeating: 0, count: small.count))
        try await client.expectImageError(.imageUpload(tooMuch), .invalidImageDataOverrun)
        let forgotten = try ImageUploadResponse(
            try await client.send(.imageUpload(ImageUploadChunk(offset: 64, data: [0]))))
        XCTAssertEqual(forgotten.offset, 0, "an error resets the upload state")
    }

    func testMatchWithImageCheck() async throws {
        let client = try await SMPTestClient(SMPFixtures.device { $0.imageCheck = true })
        let image = SMPFixtures.image()
        let last = try await client.upload(image)
        XCTAssertEqual(last.match, true)
        let again = try await client.upload(image, stopAfter: 1)
        XCTAssertEqual(Int(again.offset), image.count, "the slot already holds it: done at once")
        XCTAssertEqual(again.match, true)
    }

    func testFirstAnswerWaitsForTheEraseOfWhatTheImageCovers() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let image = SMPFixtures.image(bodySize: 40_000)
        let erasedSlot = client.central.linkTime.now()
        _ = try await client.upload(image, stopAfter: 1)
        let firstOnErasedSlot = client.central.linkTime.now() - erasedSlot
        XCTAssertLessThan(firstOnErasedSlot, .milliseconds(100), "an erased slot needs no erase")
        let other = SMPFixtures.image(bodySize: 40_000, seed: 2)
        let before = client.central.linkTime.now()
        _ = try await client.upload(other, stopAfter: 1)
        let pages = (other.count + 4095) / 4096 + 1  // the image's pages and the trailer's
        XCTAssertGreaterThanOrEqual(client.central.linkTime.now() - before, .milliseconds(85) * pages)
    }

    func testEraseCommand() async throws {
        let client = try await SMPTestClient(SMPFixtures.device())
        let image = SMPFixtures.image()
        try await client.upload(image)
        let before = try await client.imageState()
        XCTAssertEqual(before.images.count, 2)
        let erase = try await client.send(.imageErase(slot: nil))
        XCTAssertNil(erase.deviceError)
        let after = try await client.imageState()
        XCTAssertEqual(after.images.count, 1)
        try await client.expectImageError(.imageErase(slot: 0), .noFreeSlot)
    }

    private func first(_ image: [UInt8], count: Int = 100, upgrade: Bool = false) -> SMPRequest {
        .imageUpload(
            ImageUploadChunk(
                first: Array(image[..<min(count, image.count)]),
                start: .init(length: UInt32(image.count), sha256: nil, upgrade: upgrade)))
    }
}
