import DFUSimulator
import GATT
import GATTTesting
import XCTest

@testable import FirmwareUpdate
@testable import NordicDFU

/// A device that refuses the update for security: the update fails at once with the error of
/// the refusal (no second connection: a device may lock out after failed pairings), and no
/// link is left up (docs/pairing.md).
final class SecurityRefusalTests: XCTestCase {
    private let errors: [(GATTSecurityFailure, DFUError)] = [
        (.securityRequired, .securityRequired), (.authenticationFailed, .authenticationFailed),
        (.pairingRefused, .pairingRefused), (.bondLost, .bondLost),
    ]

    func testAnSMPDeviceThatRefusesFailsOnceWithItsErrorAndIsDisconnected() async throws {
        for (refusal, expected) in errors {
            let central = FakeCentral.refusingForSecurity(
                try SimulatedCentral(devices: [SMPUpdateTests.device()]), failure: refusal)
            let (result, _) = await SMPUpdateTests.update(try SMPUpdateTests.image("1.1.0"), on: central)
            XCTAssertEqual(result.failure?.error, expected, "\(refusal): \(result.failure?.message ?? "")")
            XCTAssertEqual(central.connections, 1, "\(refusal)")
            let linkUp = await central.anyLinkUp
            XCTAssertFalse(linkUp, "\(refusal): a link left up")
        }
    }

    func testANordicDFUDeviceThatRefusesFailsOnceWithItsErrorAndIsDisconnected() async throws {
        let package = try TestPackages.secureApp()
        for kind in [SimulatedDeviceKind.secureApp, .secure] {
            for (refusal, expected) in errors {
                let harness = try EngineHarness(kind, accepting: package)
                let central = FakeCentral.refusingForSecurity(harness.central, failure: refusal)
                let (result, events) = await harness.update(package, through: central)
                let label = "\(kind) \(refusal)"
                XCTAssertEqual(result.failure?.error, expected, "\(label): \(EngineHarness.logs(events))")
                XCTAssertEqual(central.connections, 1, label)
                let linkUp = await central.anyLinkUp
                XCTAssertFalse(linkUp, "\(label): a link left up")
            }
        }
    }

    func testEachRefusalHasItsOwnAdviceNamingWhatToDo() {
        XCTAssertTrue(DFUError.securityRequired.advice.contains("--passkey-file"))
        XCTAssertTrue(DFUError.bondLost.advice.contains("--re-pair"))
        XCTAssertTrue(DFUError.authenticationFailed.advice.contains("passkey"))
        XCTAssertTrue(DFUError.pairingRefused.advice.contains("pairing mode"))
        XCTAssertEqual(
            [DFUError.authenticationFailed, .pairingRefused, .bondLost, .securityRequired].map(\.rawValue),
            [313, 314, 315, 316])
        for error in [DFUError.authenticationFailed, .pairingRefused, .bondLost, .securityRequired] {
            XCTAssertFalse(DFUFailure(error, device: "d", detail: "x").isRetryable, error.name)
        }
    }
}
