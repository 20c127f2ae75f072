import DFUSimulator
import MCUmgr
import XCTest

/// In process, writes sent before the client waits overlap the device's work (docs/simulator.md,
/// "SMP device"), so a window of upload chunks meets Zephyr's buffer pool as on a real link:
/// smp_svr's 4 buffers of 2475 bytes, reassembly, MTU 498.
final class SMPWindowStarvationTests: XCTestCase {
    func testAWindowOfBufferCountLessOneStarvesThePool() async throws {
        let lost = try await firstLostChunk(window: 3)
        XCTAssertNotNil(lost, "with three chunks in flight, one is lost")
    }

    func testAWindowOfBufferCountLessTwoLosesNothing() async throws {
        let lost = try await firstLostChunk(window: 2)
        XCTAssertNil(lost, "chunk \(lost ?? 0) was lost")
    }

    /// Uploads 120 KiB with `window` chunks in flight, sending the next one after each answer;
    /// the number of the first chunk whose answer names another offset than its end (an earlier
    /// chunk was lost), nil when every chunk was written.
    private func firstLostChunk(window: Int) async throws -> Int? {
        let configuration = SMPFixtures.device(mtu: 498) { smp in
            smp.bufferSize = 2475
            smp.bufferCount = 4
            smp.reassembly = true
        }
        let client = try await SMPTestClient(configuration)
        let image = SMPFixtures.image(bodySize: 120 * 1024)
        let limit = ImageUploadChunk.frameLimit(attMTU: client.mtu, bufferSize: 2475, deviceReassembles: true)
        let first = try await client.upload(image, bufferSize: 2475, reassembles: true, stopAfter: 1)
        var next = Int(first.offset)
        var ends: [Int] = []
        func sendChunk() async throws {
            let room = ImageUploadChunk.maximumDataCount(frameLimit: limit, offset: UInt32(next), start: nil)
            let end = min(image.count, next + room)
            let chunk = ImageUploadChunk(offset: UInt32(next), data: Array(image[next..<end]))
            try await client.write(client.frame(.imageUpload(chunk)).encoded, writeSize: client.mtu - 3)
            ends.append(end)
            next = end
        }
        for _ in 0..<window { try await sendChunk() }
        var answered = 0
        while answered < ends.count {
            let answer = try ImageUploadResponse(try await client.nextResponse())
            if Int(answer.offset) != ends[answered] { return answered }
            answered += 1
            if next < image.count { try await sendChunk() }
        }
        return nil
    }
}
