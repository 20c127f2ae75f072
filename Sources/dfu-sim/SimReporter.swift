import ArgumentParser
import DFUSimulator
import DFUSupport
import Foundation
import GATT

/// What dfu-sim tells its user: JSON Lines on stdout (`--json`), or lines for a person.
struct SimReporter: Sendable {
    let json: Bool
    /// Where the times of `write` events count from.
    let started = ContinuousClock.now

    /// The device (re)started advertising.
    func advertising(address: String, name: String, mode: DeviceSnapshot.Mode) {
        if json {
            line(["event": "advertising", "device": address, "name": name, "mode": mode.rawValue])
        } else {
            line("advertising as \(name) at \(address) (\(mode.rawValue))")
        }
    }

    /// What the device holds (the contract's `simulator` event).
    func simulator(_ snapshot: DeviceSnapshot) {
        if json {
            let images = Dictionary(
                uniqueKeysWithValues: snapshot.images.map { type, image in
                    (
                        type.rawValue,
                        [
                            "size": image.size, "sha256": image.sha256,
                            "version": image.version.map { $0 as Any } ?? NSNull(),
                        ]
                            as [String: Any]
                    )
                })
            var event: [String: Any] = [
                "event": "simulator", "device": snapshot.address, "mode": snapshot.mode.rawValue,
                "images": images,
                "activations": snapshot.activations,
            ]
            if !snapshot.slots.isEmpty { event["slots"] = snapshot.slots.map(Self.json) }
            if let hash = snapshot.networkCoreHash { event["network_core_hash"] = hash.hexString() }
            line(event)
        } else {
            line(
                "\(snapshot.name) at \(snapshot.address) runs its \(snapshot.mode.rawValue); \(snapshot.activations) activation(s)"
            )
            for (type, image) in snapshot.images.sorted(by: { $0.key < $1.key }) {
                let version = image.version.map { " version \($0)" } ?? ""
                line("  \(type.rawValue): \(image.size) bytes\(version), sha256 \(image.sha256)")
            }
            for slot in snapshot.slots {
                let flags = Self.flags(of: slot).joined(separator: " ")
                let image = slot.image == 0 ? "" : "image \(slot.image) "
                line("  \(image)slot \(slot.slot): \(slot.version), hash \(slot.hash.hexString()) \(flags)")
            }
        }
    }

    /// A slot of an SMP device as the `simulator` event reports it.
    private static func json(_ slot: MCUbootSlotState) -> [String: Any] {
        [
            "image": slot.image, "slot": slot.slot, "version": slot.version, "hash": slot.hash.hexString(),
            "size": slot.size,
            "bootable": slot.bootable, "pending": slot.pending, "confirmed": slot.confirmed,
            "active": slot.active, "permanent": slot.permanent,
        ]
    }

    private static func flags(of slot: MCUbootSlotState) -> [String] {
        [
            (slot.active, "active"), (slot.confirmed, "confirmed"), (slot.pending, "pending"),
            (slot.permanent, "permanent"),
        ].filter(\.0).map(\.1)
    }

    /// The device received a write (`--trace`): when (ms since dfu-sim started), the
    /// characteristic, the value's length and first bytes (hex), and how long after the write each
    /// notification it answers with is due.
    func write(
        _ characteristic: BluetoothUUID, _ value: [UInt8], arrived: ContinuousClock.Instant,
        notifiesAfter delays: [Duration]
    ) {
        let shown = value.prefix(Self.tracedBytes).hexString()
        let delaysMs = delays.map { $0 / .milliseconds(1) }
        let atMs = (arrived - started) / .milliseconds(1)
        if json {
            // Written out by hand, keys in JSONSerialization's sorted order: one line per write,
            // and under the VM's emulated CPU its locale-aware formatting cost more than the
            // device itself, slowing the very link a benchmark measures (docs/benchmarks.md).
            let delaysText = delaysMs.map { "\($0)" }.joined(separator: ",")
            line(
                #"{"at_ms":\#(atMs),"characteristic":"\#(characteristic.uuidString)","event":"write","#
                    + #""length":\#(value.count),"notifies_after_ms":[\#(delaysText)],"value":"\#(shown)"}"#)
        } else {
            let more = value.count > Self.tracedBytes ? "…" : ""
            let notifications = delaysMs.map { String(format: "%.1f ms", $0) }.joined(separator: ", ")
            line(
                String(format: "%.1f ms: ", atMs)
                    + "write \(characteristic.uuidString): \(shown)\(more) (\(value.count) bytes)"
                    + (delaysMs.isEmpty ? "" : "; notifies after \(notifications)"))
        }
    }

    /// How much of a written value `write` shows: a control point request whole, a packet's start.
    private static let tracedBytes = 20

    /// Something worth a person's attention that does not stop the device.
    func warning(_ message: String) {
        if json {
            line(["event": "warning", "message": message])
        } else {
            try? FileHandle.standardError.write(contentsOf: Data("warning: \(message)\n".utf8))
        }
    }

    /// Reports a failure the contract's way and returns the exit code to throw.
    func fail(_ errorClass: String, _ message: String, exitCode: Int32) -> ExitCode {
        if json {
            line(["error": ["class": errorClass, "message": message]])
        } else {
            try? FileHandle.standardError.write(contentsOf: Data("error: \(message)\n".utf8))
        }
        return ExitCode(exitCode)
    }

    private func line(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        line(String(decoding: data, as: UTF8.self))
    }

    private func line(_ text: String) {
        // a reader gone (EPIPE with SIGPIPE ignored) is no reason to crash
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }
}
