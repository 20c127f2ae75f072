import MCUmgr
import XCTest

@testable import DFUSimulator

/// The transport's buffer pool, driven directly (docs/simulator.md, "SMP device").
final class SMPBufferPoolTests: XCTestCase {
    private let echo = SMPRequest.echo("x").frame(sequence: 1).encoded

    func testRequestsBeyondTheBufferCountAreLost() {
        var configuration = SMPDeviceConfiguration()
        configuration.bufferCount = 4
        var transport = SMPTransport(configuration: configuration)
        // A request whose answer is reported sent at t = 1000 holds its buffer and one for its
        // answer until then.
        XCTAssertNotNil(transport.receive(echo, at: 0))
        transport.hold(until: 1000)
        for arrival in [10, 20] as [Nanoseconds] {
            XCTAssertNotNil(transport.receive(echo, at: arrival), "queued at \(arrival)")
            transport.hold(until: 1000)
        }
        XCTAssertNil(transport.receive(echo, at: 30), "all four buffers are taken")
        XCTAssertNil(transport.receive(echo, at: 1000), "still taken in the event that reports them sent")
        XCTAssertNotNil(transport.receive(echo, at: 1001), "free again once reported sent")
    }

    /// `smp_bt_tx_pkt` waits for the central's next packet: the event after the answer's, which
    /// goes out no earlier than the event after the request's.
    func testAnAnswerIsReportedSentInTheEventAfterItsOwn() {
        let interval: Nanoseconds = 15_000_000
        XCTAssertEqual(
            SMPTransport.reportedSent(readyAt: 3 * interval, receivedAt: 3 * interval, interval: interval),
            5 * interval, "no flash work: out in the next event, reported in the one after")
        XCTAssertEqual(
            SMPTransport.reportedSent(
                readyAt: 7 * interval + 1, receivedAt: 3 * interval, interval: interval),
            9 * interval, "out in the first event after its flash work")
    }

    /// With Zephyr's 4 buffers, the write that follows an answer finds the answered request and
    /// its answer still holding two: a window of two more requests fits, a third is lost.
    func testTheWriteAfterAnAnswerFindsItsBuffersTaken() {
        var transport = SMPTransport(configuration: SMPDeviceConfiguration())
        let interval: Nanoseconds = 15_000_000
        for (arrival, reported) in [(0, 4), (1, 6), (2, 8)] as [(Nanoseconds, Nanoseconds)] {
            XCTAssertNotNil(transport.receive(echo, at: arrival * interval))
            transport.hold(until: reported * interval)
        }
        XCTAssertNil(transport.receive(echo, at: 4 * interval), "three requests in flight and an answer")
        XCTAssertNotNil(transport.receive(echo, at: 5 * interval), "the first one's buffers are free")
    }

    func testReassemblyRefusesWhatCannotFitAndDropsAnOverlongPiece() {
        var configuration = SMPDeviceConfiguration()
        configuration.bufferSize = 64
        configuration.reassembly = true
        var transport = SMPTransport(configuration: configuration)
        let large = SMPRequest.echo(String(repeating: "z", count: 80)).frame(sequence: 2).encoded
        XCTAssertNil(transport.receive(Array(large[..<20]), at: 0))
        XCTAssertEqual(transport.receive(echo, at: 2), echo, "refused, not being collected")
        let frame = SMPRequest.echo(String(repeating: "w", count: 30)).frame(sequence: 3).encoded
        XCTAssertNil(transport.receive(Array(frame[..<20]), at: 3))
        XCTAssertNil(
            transport.receive(Array(frame[20...]) + [0], at: 4), "one byte too many")
        XCTAssertEqual(transport.receive(echo, at: 5), echo, "the next frame starts afresh")
    }
}
