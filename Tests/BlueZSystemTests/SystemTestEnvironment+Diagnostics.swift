import Foundation
import XCTest

/// What the controllers looked like when a system test failed, for a failure that leaves later
/// tests unable to connect (seen once on bluetoothd 5.82, not reproduced): each controller's
/// settings and advertising instances, as the kernel's management interface reports them.
extension SystemTestEnvironment {
    /// Prints the controllers' state when `run` failed (not when it passed or was skipped).
    static func printControllerState(ifFailed run: XCTestRun?, test: String) async {
        guard let run, run.totalFailureCount > 0 else { return }
        await printControllerState(after: test)
    }

    private static func printControllerState(after test: String) async {
        let controllers = Int(ProcessInfo.processInfo.environment["DFU_UPDATE_VM_CONTROLLERS"] ?? "") ?? 2
        var lines = ["== controllers after the failure of \(test):"]
        for index in 0..<max(controllers, 2) {
            for command in ["info", "advinfo"] {
                let output = try? await run(
                    URL(fileURLWithPath: "/usr/bin/btmgmt"), ["--index", String(index), command],
                    timeout: .seconds(10))
                lines.append(
                    "hci\(index) \(command): " + (output.map { $0.stdout + $0.stderr } ?? "did not run"))
            }
        }
        print(lines.joined(separator: "\n"))
    }
}
