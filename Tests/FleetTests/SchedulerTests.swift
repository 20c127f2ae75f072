import DFUSupport
import GATT
import XCTest

@testable import DFUFleet

/// The scheduler never runs more than the overall limit, nor more than an adapter holds.
final class SchedulerTests: XCTestCase {
    func testLimitsHoldAndEveryItemRuns() async {
        let scheduler = FleetScheduler(concurrency: 4, capacities: [2, 3])
        let state = Locked((overall: 0, perAdapter: [0, 0], peak: 0, peaks: [0, 0], ran: [Int]()))
        let items = Array(0..<30)
        let byParity: (Int) -> Int = { $0 % 2 }
        let unstarted = await scheduler.run(items, adapter: byParity) { item in
            state.withLock { state in
                state.overall += 1
                state.perAdapter[item % 2] += 1
                state.peak = max(state.peak, state.overall)
                state.peaks[item % 2] = max(state.peaks[item % 2], state.perAdapter[item % 2])
            }
            for _ in 0..<20 { await Task.yield() }
            state.withLock { state in
                state.overall -= 1
                state.perAdapter[item % 2] -= 1
                state.ran.append(item)
            }
        }
        XCTAssertTrue(unstarted.isEmpty)
        let final = state.withLock { $0 }
        XCTAssertEqual(final.ran.sorted(), items)
        XCTAssertLessThanOrEqual(final.peak, 4)
        XCTAssertLessThanOrEqual(final.peaks[0], 2)
        XCTAssertLessThanOrEqual(final.peaks[1], 3)
    }

    func testStopsStartingWhenToldAndReturnsTheRest() async {
        let scheduler = FleetScheduler(concurrency: 1, capacities: [1])
        let ran = Locked(0)
        let fewerThanThree = { (_: Int) in ran.withLock { $0 < 3 } }
        let onAdapterZero: (Int) -> Int = { _ in 0 }
        let unstarted = await scheduler.run(Array(0..<10), adapter: onAdapterZero, mayStart: fewerThanThree) {
            _ in
            ran.withLock { $0 += 1 }
        }
        XCTAssertEqual(ran.withLock { $0 }, 3)
        XCTAssertEqual(unstarted, Array(3..<10))
    }
}
