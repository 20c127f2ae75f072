import MCUmgr
import XCTest

@testable import DFUSimulator

/// The transport's buffer pool, driven directly: in-process, a subscribed client's clock reaches
/// each answer's event as the device sends it, so requests never pile up behind a slow one there
/// (docs/simulator.md, "SMP device"); under `dfu-sim` in real time they do.
final class SMPBufferPoolTests: XCTestCase {
    private let echo = SMPRequest.echo("x").frame(sequence: 1).encoded

    func testRequestsBeyondTheBufferCountAreLost() {
        var configuration = SMPDeviceConfiguration()
        configuration.bufferCount = 4
        var transport = SMPTransport(configuration: configuration)
        // A request whose flash work lasts until t = 1000 holds its buffer and one for its answer.
        XCTAssertNotNil(transport.receive(echo, at: 0, answering: false))
        transport.hold(until: 1000)
        for arrival in [10, 20] as [Nanoseconds] {
            XCTAssertNotNil(transport.receive(echo, at: arrival, answering: true), "queued at \(arrival)")
            transport.hold(until: 1000)
        }
        XCTAssertNil(transport.receive(echo, at: 30, answering: true), "all four buffers are taken")
        XCTAssertNotNil(transport.receive(echo, at: 1000, answering: false), "free again once answered")
    }

    func testReassemblyRefusesWhatCannotFitAndDropsAnOverlongPiece() {
        var configuration = SMPDeviceConfiguration()
        configuration.bufferSize = 64
        configuration.reassembly = true
        var transport = SMPTransport(configuration: configuration)
        let large = SMPRequest.echo(String(repeating: "z", count: 80)).frame(sequence: 2).encoded
        XCTAssertNil(transport.receive(Array(large[..<20]), at: 0, answering: false))
        XCTAssertEqual(transport.receive(echo, at: 2, answering: false), echo, "refused, not being collected")
        let frame = SMPRequest.echo(String(repeating: "w", count: 30)).frame(sequence: 3).encoded
        XCTAssertNil(transport.receive(Array(frame[..<20]), at: 3, answering: false))
        XCTAssertNil(
            transport.receive(Array(frame[20...]) + [0], at: 4, answering: false), "one byte too many")
        XCTAssertEqual(transport.receive(echo, at: 5, answering: false), echo, "the next frame starts afresh")
    }
}
