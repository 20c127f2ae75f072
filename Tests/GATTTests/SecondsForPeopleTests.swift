import DFUSupport
import GATT
import XCTest

/// Durations in messages are rounded for people; machine output keeps the full value.
final class SecondsForPeopleTests: XCTestCase {
    func testRounding() {
        XCTAssertEqual(29.95693896.secondsForPeople, "30 s")
        XCTAssertEqual(10.4.secondsForPeople, "10 s")
        XCTAssertEqual(2.5.secondsForPeople, "2.5 s")
        XCTAssertEqual(2.0.secondsForPeople, "2 s")
        XCTAssertEqual(0.25.secondsForPeople, "250 ms")
        XCTAssertEqual(0.020302734375.secondsForPeople, "20.3 ms")
        XCTAssertEqual(0.0015.secondsForPeople, "1.5 ms")
        XCTAssertEqual(0.0.secondsForPeople, "0 s")
        XCTAssertEqual(Duration.milliseconds(1430).secondsForPeople, "1.4 s")
    }
}
