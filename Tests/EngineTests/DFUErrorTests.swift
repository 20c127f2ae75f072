import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// The raw values and remote-code mapping of protocol doc §6.1 and the vectors of §2.13.
final class DFUErrorTests: XCTestCase {
    func testRemoteCodesMapAsTheReferenceLibraries() throws {
        let createRejected = try SecureDFUResponse(decoding: [0x60, 0x01, 0x0B, 0x05])
        guard case .failure(let result, let extended) = createRejected.outcome else { return XCTFail() }
        XCTAssertEqual(DFUError(secureResult: result, extended: extended).rawValue, 25)

        let executeRefused = try SecureDFUResponse(decoding: [0x60, 0x04, 0x08])
        guard case .failure(let result2, let extended2) = executeRefused.outcome else { return XCTFail() }
        XCTAssertEqual(
            DFUError(secureResult: result2, extended: extended2), .remoteSecureDFUOperationNotPermitted)
        XCTAssertEqual(DFUError.remoteSecureDFUOperationNotPermitted.rawValue, 18)

        XCTAssertEqual(DFUError(legacyStatus: .crcError).rawValue, 5)
        XCTAssertEqual(DFUError(buttonlessResult: .notBonded, experimental: false).rawValue, 97)
        XCTAssertEqual(DFUError(buttonlessResult: .operationFailed, experimental: true).rawValue, 9004)
        XCTAssertEqual(DFUError(secureResult: .extendedError, extended: .noError), .unsupportedResponse)
    }

    func testLocalRawValues() {
        let expected: [(DFUError, Int)] = [
            (.fileNotSpecified, 101), (.initPacketRequired, 104), (.failedToConnect, 201),
            (.deviceDisconnected, 202), (.bluetoothDisabled, 203), (.serviceDiscoveryFailed, 301),
            (.bytesLost, 308), (.crcError, 309), (.invalidInternalState, 500),
        ]
        for (error, raw) in expected { XCTAssertEqual(error.rawValue, raw, error.name) }
        XCTAssertTrue(DFUError.remoteExtendedErrorInsufficientSpace.isRemote)
        XCTAssertFalse(DFUError.crcError.isRemote)
        XCTAssertEqual(DFUState.allCases.map(\.rawValue), Array(0...7))
        XCTAssertEqual(DFUState.enablingDfuMode.identifier, "enabling_dfu_mode")
    }

    func testMessagesNameTheDeviceAndWhatToTry() {
        let failure = DFUFailure(.failedToConnect, device: "C0:DE:00:00:00:10", detail: "no answer")
        XCTAssertTrue(failure.message.hasPrefix("C0:DE:00:00:00:10: no answer; "))
        XCTAssertTrue(failure.message.contains("retry"))
    }

    /// An SMP device runs its application throughout: its advice never speaks of a bootloader
    /// waiting, and a revert under test-only does not advise test-only.
    func testSMPAdviceIsSMPs() {
        for error in [
            DFUError.deviceDisconnected, .bytesLost, .receivingNotificationFailed, .deviceNotSupported,
        ] {
            let advice = error.smpAdvice(activation: .testAndConfirm)
            XCTAssertFalse(advice.contains("bootloader"), "\(error): \(advice)")
        }
        XCTAssertFalse(DFUError.imageReverted.smpAdvice(activation: .testOnly).contains("test-only"))
        XCTAssertEqual(
            DFUError.imageReverted.smpAdvice(activation: .testAndConfirm), DFUError.imageReverted.advice)
        let failure = DFUFailure(.bytesLost, device: "C0:DE:00:00:00:20", detail: "lost", advice: "try this")
        XCTAssertEqual(failure.message, "C0:DE:00:00:00:20: lost; try this")
    }
}
