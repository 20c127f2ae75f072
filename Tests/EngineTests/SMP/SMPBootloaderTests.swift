import DFUSimulator
import MCUmgr
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// What the device says of its bootloader decides which activations can be honoured
/// (docs/mcumgr.md, "MCUboot modes").
final class SMPBootloaderTests: XCTestCase {
    private let activations = DFUOptions.SMP.Activation.allCases

    func testSwapModesAndModesNotToldTakeEveryActivation() {
        let modes: [MCUbootMode?] = [
            nil, .swapUsingScratch, .swapUsingMove, .swapUsingOffset, .unknown, MCUbootMode(rawValue: 42),
        ]
        for mode in modes {
            for activation in activations {
                XCTAssertNil(
                    SMPBootloader(name: "MCUboot", mode: mode).refusal(of: activation),
                    "\(String(describing: mode))")
            }
        }
    }

    func testOverwriteOnlyCannotRunAnImageOnTest() throws {
        let bootloader = SMPBootloader(name: "MCUboot", mode: .overwriteOnly)
        let refusal = try XCTUnwrap(bootloader.refusal(of: .testOnly))
        XCTAssertTrue(refusal.contains("overwrite-only"), refusal)
        for activation in activations where activation != .testOnly {
            XCTAssertNil(bootloader.refusal(of: activation), "\(activation)")
        }
    }

    func testDirectXIPRunsNoTestWithoutRevertAndEverythingWithIt() throws {
        let withoutRevert = SMPBootloader(name: "MCUboot", mode: .directXIP)
        let refusal = try XCTUnwrap(withoutRevert.refusal(of: .testOnly))
        XCTAssertTrue(refusal.contains("cannot run an image on test"), refusal)
        for activation in activations {
            XCTAssertNil(SMPBootloader(name: "MCUboot", mode: .directXIPWithRevert).refusal(of: activation))
            if activation != .testOnly {
                XCTAssertNil(withoutRevert.refusal(of: activation), "\(activation)")
            }
        }
    }

    func testRAMLoadRunsNoTest() throws {
        let ramLoad = SMPBootloader(name: "MCUboot", mode: .ramLoad)
        let refusal = try XCTUnwrap(ramLoad.refusal(of: .testOnly))
        XCTAssertTrue(refusal.contains("RAM load mode"), refusal)
        for activation in activations where activation != .testOnly {
            XCTAssertNil(ramLoad.refusal(of: activation), "\(activation)")
        }
    }

    func testAFirmwareLoaderTakesNoTestAndLeavesNothingWaiting() {
        let loader = SMPBootloader(name: "MCUboot", mode: .firmwareLoader)
        for activation in activations {
            let refused = activation == .testOnly || activation == .noReset
            XCTAssertEqual(loader.refusal(of: activation) != nil, refused, "\(activation)")
        }
    }

    func testModesWithoutAFlowAreRefusedWhateverTheActivation() {
        let modes: [MCUbootMode] = [.singleSlot, .singleSlotRAMLoad]
        for mode in modes {
            for activation in activations {
                let refusal = SMPBootloader(name: "MCUboot", mode: mode).refusal(of: activation)
                XCTAssertTrue(
                    refusal?.contains("MCUboot runs in \(mode) mode") == true, "\(mode), \(activation)")
            }
        }
    }

    /// The update asks for the bootloader after the MCUmgr parameters and says what it learned.
    func testTheUpdateLearnsTheBootloaderAndGoesOn() async throws {
        let central = try SimulatedCentral(devices: [
            SMPUpdateTests.device { $0.smp.bootloaderMode = .swapUsingOffset }
        ])
        let (result, events) = await SMPUpdateTests.update(try SMPUpdateTests.image("1.1.0"), on: central)
        XCTAssertEqual(result.outcome, .completed, "\(result.failure?.message ?? "")")
        let told = events.contains {
            if case .log(_, let message) = $0 {
                message.contains("bootloader MCUboot, swap using offset")
            } else {
                false
            }
        }
        XCTAssertTrue(told, "no log line names the bootloader")
    }
}
