import DFUSimulator
import GATT
import MCUmgr
import XCTest

/// The SMP Bluetooth transport: reassembly, the buffer pool, answers split to ATT_MTU − 3.
final class SMPTransportTests: XCTestCase {
    func testMCUmgrParametersAndEcho() async throws {
        let client = try await SMPTestClient(
            SMPFixtures.device {
                $0.bufferSize = 2475
                $0.bufferCount = 5
            })
        let parameters = try MCUmgrParameters(try await client.send(.mcumgrParameters))
        XCTAssertEqual(parameters, MCUmgrParameters(bufferSize: 2475, bufferCount: 5))
        let echo = try EchoResponse(try await client.send(.echo("hello")))
        XCTAssertEqual(echo.text, "hello")
    }

    func testAnswersAreSplitIntoPiecesOfMTUMinus3() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(mtu: 23))
        let request = client.frame(.imageState)
        try await client.write(request.encoded)
        let firstNotification = try await client.nextNotification()
        let firstPiece = try XCTUnwrap(firstNotification)
        XCTAssertEqual(firstPiece.count, 20)
        let header = try SMPHeader(decoding: firstPiece[...])
        var received = firstPiece.count
        while received < SMPHeader.size + Int(header.length) {
            let notification = try await client.nextNotification()
            let piece = try XCTUnwrap(notification)
            XCTAssertLessThanOrEqual(piece.count, 20)
            received += piece.count
        }
        XCTAssertEqual(received, SMPHeader.size + Int(header.length))
    }

    func testWithoutReassemblyAFrameSplitOverWritesIsCorrupt() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(mtu: 23))
        let answer = try await client.send(.echo(String(repeating: "x", count: 30)), writeSize: 20)
        XCTAssertEqual(answer.deviceError, .mcumgr(rc: MCUmgrReturnCode.corrupt.rawValue, reason: nil))
        // The other pieces do not start with a valid header: nothing answers them. They wait
        // behind the answered piece until its answer is reported sent, holding buffers until
        // the event after that, so the next request goes two events later.
        try await client.central.linkTime.sleep(for: .milliseconds(30))
        let next = try EchoResponse(try await client.send(.echo("ok")))
        XCTAssertEqual(next.text, "ok")
    }

    func testWithReassemblyAFrameMaySpanWrites() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(mtu: 23) { $0.reassembly = true })
        let text = String(repeating: "x", count: 200)
        let echo = try EchoResponse(try await client.send(.echo(text), writeSize: 20))
        XCTAssertEqual(echo.text, text)
        let image = SMPFixtures.image(bodySize: 3000)
        let last = try await client.upload(image, reassembles: true)
        XCTAssertEqual(Int(last.offset), image.count)
    }

    func testAFrameLargerThanTheBufferIsLost() async throws {
        let client = try await SMPTestClient(SMPFixtures.device(mtu: 23) { $0.reassembly = true })
        let tooLarge = client.frame(.echo(String(repeating: "y", count: 400)))
        try await client.write(tooLarge.encoded, writeSize: 20)
        let answer = try await client.send(.echo("next"))
        XCTAssertEqual(try EchoResponse(answer).text, "next", "the 400-byte echo got no answer")
    }
}
