// A gateway's writes to an embedded rollout store, as fast as they go, for the test that kills
// it (EmbeddedCrashTests): `rollout-store-writer FILE ROLLOUT`. Prints its pid, then
// `claimed DEVICE` before each report and `done DEVICE` once the report returned.
import DFURollout
import Foundation

/// One line on stdout, unbuffered: a line printed is a line the test reads, however the process ends.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: rollout-store-writer FILE ROLLOUT\n".utf8))
    exit(2)
}
let store = try EmbeddedRolloutStore(path: arguments[1])
say("pid \(getpid())")
while let claim = try await store.claim(
    arguments[2], for: "writer", among: nil, limit: 1, lease: .seconds(3600)
).first {
    say("claimed \(claim.device)")
    try await store.report(claim, DeviceOutcome(result: .completed, report: Data(claim.device.utf8)))
    say("done \(claim.device)")
}
await store.close()
