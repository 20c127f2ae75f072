import DFUSimulator
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// Issue 38: 300 KiB uploads against devices whose transport drops a frame that finds Zephyr's
/// buffer pool taken (docs/simulator.md, "SMP device"; docs/mcumgr.md, "Window"). In process the
/// chunks of the window overlap the device's work, as on a real link.
final class SMPBufferPoolUploadTests: XCTestCase {
    private struct Pool {
        var name: String
        var mtu: Int
        var bufferSize: Int
        var bufferCount = 4
        var reassembly: Bool
        var bootloaderInfo = false
    }

    private let pools = [
        // Zephyr's smp_svr sample (overlay-bt.conf): reassembly, 4 × 2475, MTU 498.
        Pool(name: "smp_svr", mtu: 498, bufferSize: 2475, reassembly: true),
        // sdk-nrf's `NCS_SAMPLE_MCUMGR_BT_OTA_DFU` (samples/common/mcumgr_bt_ota_dfu/Kconfig):
        // reassembly, 2475-byte buffers, Zephyr's count (4), MTU 498 (`…_SPEEDUP`); the same pool
        // as smp_svr, with bootloader information (so the engine asks for the mode first).
        Pool(name: "NCS OTA DFU", mtu: 498, bufferSize: 2475, reassembly: true, bootloaderInfo: true),
        // Zephyr's Kconfig defaults: 4 × 384, no reassembly.
        Pool(name: "Zephyr defaults", mtu: 247, bufferSize: 384, reassembly: false),
        // Two buffers (CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT=2): a request in the packet that
        // acknowledges an answer finds both taken; with and without the reassembly probe.
        Pool(name: "two buffers", mtu: 247, bufferSize: 384, bufferCount: 2, reassembly: false),
        Pool(
            name: "two buffers, reassembly", mtu: 498, bufferSize: 2475, bufferCount: 2, reassembly: true,
            bootloaderInfo: true),
    ]

    func testAWindowNeverStarvesThePoolNorWaitsAWholeTimeout() async throws {
        for pool in pools {
            let central = try SimulatedCentral(devices: [
                SMPUpdateTests.device { device in
                    device.mtu = pool.mtu
                    device.smp.bufferSize = pool.bufferSize
                    device.smp.bufferCount = pool.bufferCount
                    device.smp.reassembly = pool.reassembly
                    if pool.bootloaderInfo { device.smp.bootloaderMode = .swapUsingMove }
                }
            ])
            let image = try SMPUpdateTests.image("1.1.0", size: 300 * 1024, seed: 5)
            let started = ContinuousClock.now
            let (result, events) = await SMPUpdateTests.update(image, on: central)
            let wall = ContinuousClock.now - started
            XCTAssertEqual(result.outcome, .completed, "\(pool.name): \(result.failure?.message ?? "")")
            let window = max(1, pool.bufferCount - 2) * pool.bufferSize
            XCTAssertLessThan(result.bytesResent, window, "\(pool.name): resent \(result.bytesResent) bytes")
            let waited = events.contains {
                if case .log(_, let line) = $0 {
                    line.contains("no answer to the chunks in flight")
                } else {
                    false
                }
            }
            XCTAssertFalse(waited, "\(pool.name): waited a whole response timeout")
            XCTAssertLessThan(wall, DFUOptions().responseTimeout, pool.name)
        }
    }

    /// An SMP answer moves the clock when the engine takes it, which it does only while it waits
    /// for one: the same update gives the same events twice, a lost link and its resume included.
    func testTheSameUploadGivesTheSameEventsTwice() async throws {
        let image = try SMPUpdateTests.image("1.1.0", size: 100 * 1024, seed: 6)
        var streams: [[String]] = []
        for _ in 0..<2 {
            let central = try SimulatedCentral(devices: [
                SMPUpdateTests.device { device in
                    device.mtu = 498
                    device.smp.bufferSize = 2475
                    device.smp.reassembly = true
                    device.faults = [.disconnectAt(bytes: 40_000)]
                }
            ])
            let (result, events) = await SMPUpdateTests.update(image, on: central)
            XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
            streams.append(events.map { "\($0)" })
        }
        XCTAssertGreaterThan(streams[0].count, 5)
        XCTAssertEqual(streams[0], streams[1])
    }
}
