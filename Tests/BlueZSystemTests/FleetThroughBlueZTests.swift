import Foundation
import XCTest

/// `dfu-update fleet` through real bluetoothd (docs/fleet.md): several `dfu-sim` devices, each on
/// a virtual controller of its own, updated at once through one central controller (hci0) by one
/// `dfu-update fleet` run, each with its own package. Needs the VM's btvirt built by
/// scripts/vm/build-btvirt.sh: Debian's cannot carry two links of one controller at once.
final class FleetThroughBlueZTests: DFUThroughBlueZTestCase {
    /// Per device: the `dfu-sim` kind, the package (relative to the repository) it gets and its
    /// faults. Small images, each different, so that a device holding one proves which package
    /// it got. The second device resets without answering its last Execute, as a bootloader
    /// whose answer goes down with the link: the fleet must confirm it, not update it twice.
    ///
    /// The first device's slow erase (its settings pages and every object's) makes its upload
    /// last seconds rather than a fraction of one, so that it overlaps the others; the other two
    /// uploads (100 KiB in 25 objects, and 20,000 bytes of Legacy DFU at MTU 23) last longer
    /// than a connection attempt's 10 s. The controller makes one LE connection at a time, so
    /// one attempt that hangs holds the next device back (seen in the VM under bluetoothd 5.66):
    /// any two devices' uploads still overlap. The second device's flash keeps the nRF52's
    /// times: with 800 ms erases its bootloader's copy of 100 KiB took 22 s, longer than the
    /// engine looks for a device after a lost last answer (the scan timeout plus the copy at
    /// those times, docs/engine.md): the update was confirmed on kernel 6.1 all the same, and
    /// failed `activationNotConfirmed` in most runs on 6.12.
    private let devices = [
        ("secure-app", "Firmware/secure_app.zip", ["--sim-fault", "slow-flash=800"]),
        (
            "secure-app", "Tests/Fixtures/secure/secure_app_100k_hex_signed_bootval_ecdsa.zip",
            ["--sim-fault", "drop-final-answer=1", "--sim-firmware-version", "0.0.1"]
        ),
        // its application_version 1 reads as 0.0.1: a device at 1.0.0 would be up to date
        ("legacy-app", "Firmware/legacy_app.zip", ["--sim-firmware-version", "0.0.0"]),
    ]

    func testDevicesAreUpdatedAtOnceThroughOneAdapter() async throws {
        // hci1 … hci3 serve the devices; hci0 is the updater's one central.
        let adapters = SystemTestEnvironment.peripheralAdapters
        guard adapters.count >= devices.count else {
            // Not a skip: inside the VM every system test must run.
            return XCTFail(
                "\(devices.count) controllers besides hci0 needed, the VM has \(adapters.count): "
                    + "run scripts/vm/run.sh --controllers \(devices.count + 1)")
        }
        let central = SystemTestEnvironment.centralAdapter
        centralAdapters = [central]
        let simulators = try devices.indices.map {
            try startSimulator(devices[$0].0, devices[$0].2, adapter: adapters[$0])
        }
        var addresses: [String] = []
        for simulator in simulators {
            let advertising = try await simulator.waitForAdvertising()
            addresses.append(try XCTUnwrap(advertising["device"] as? String))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inventory = folder.appendingPathComponent("fleet.json")
        let entries = addresses.indices.map { index in
            [
                "device": addresses[index], "adapter": central,
                "package": SystemTestEnvironment.repositoryFile(devices[index].1),
            ]
        }
        try JSONSerialization.data(withJSONObject: ["devices": entries]).write(to: inventory)
        let reportFile = folder.appendingPathComponent("report.json")

        let started = ContinuousClock.now
        let run = try await SystemTestEnvironment.run(
            SystemTestEnvironment.dfuUpdateExecutable,
            [
                "fleet", inventory.path, "--adapter-connections", String(devices.count),
                "--concurrency", String(devices.count),
                "--json", "--report", reportFile.path, "--device-timeout", "200",
            ], timeout: .seconds(300))
        print("fleet of \(devices.count) through bluetoothd: \(ContinuousClock.now - started)")
        let lines = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(run.status, 0, "\(run.stdout) \(run.stderr)")
        if run.status != 0 {
            // what each device saw, for a failure that only the devices' side explains
            for (index, simulator) in simulators.enumerated() {
                let events = simulator.events.map { "\($0)" }.joined(separator: "\n")
                print("dfu-sim at \(addresses[index]):\n\(events)\n\(simulator.errorOutput)")
            }
        }
        assertOverlapped(lines, addresses)

        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: reportFile)) as? [String: Any])
        let summary = report["summary"] as? [String: Any]
        XCTAssertEqual(summary?["completed"] as? Int, devices.count, "\(report)")
        let reported = try XCTUnwrap(report["devices"] as? [[String: Any]])
        for (index, address) in addresses.enumerated() {
            let result = lines.last {
                $0["event"] as? String == "result" && $0["device"] as? String == address
            }
            let entry = try XCTUnwrap(reported.first { $0["device"] as? String == address }, "\(report)")
            XCTAssertEqual(result?["result"] as? String, "completed", "\(address): \(run.stdout)")
            for member in ["result", "version_after", "bytes_sent", "address", "retries"] {
                XCTAssertEqual(
                    entry[member] as? NSObject, result?[member] as? NSObject,
                    "\(address) \(member): \(report)")
            }
            let held = try await simulators[index].stop()
            XCTAssertEqual(held["activations"] as? Int, 1, "\(address): \(held)")
            try await assertHoldsApplication(of: devices[index].1, held)
            // The version read back is the package's (a Legacy package has none).
            if devices[index].0.hasPrefix("secure") {
                let checked = lines.first {
                    $0["event"] as? String == "version" && $0["device"] as? String == address
                }
                let version = try XCTUnwrap(checked?["package"] as? String, "\(address): \(run.stdout)")
                XCTAssertEqual(entry["version_after"] as? String, version, "\(address): \(report)")
            }
        }
    }

    /// Asserts that every device's update (its first state event to its result) was in progress
    /// at one and the same moment: the last start comes before the first end in the fleet's
    /// output, which it prints as events happen. And that uploads (a device's `uploading` state to
    /// its next state) ran at once: some two overlapped, which uploads one after another, as
    /// through an adapter that took one device at a time, never do. (All three at once is too
    /// much to ask: a device's jump to its bootloader can take seconds longer than another's.)
    private func assertOverlapped(
        _ lines: [[String: Any]], _ devices: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        // which device did what, in order (device index: state, or progress percent)
        print(
            "timeline:",
            lines.compactMap { line -> String? in
                guard let device = (line["device"] as? String).flatMap(devices.firstIndex) else { return nil }
                let what = line["state"] ?? line["percent"].map { "\($0)%" } ?? line["event"] ?? "?"
                return "\(device):\(what)"
            }.joined(separator: " "))
        let indexed = Array(lines.enumerated())
        func states(of device: String) -> [(index: Int, state: String)] {
            indexed.compactMap { index, line in
                guard line["device"] as? String == device, let state = line["state"] as? String else {
                    return nil
                }
                return (index, state)
            }
        }
        let deviceStates = devices.map(states(of:))
        let updates = zip(devices, deviceStates).map { device, states -> Range<Int>? in
            guard let start = states.first?.index,
                let end = lines.firstIndex(where: {
                    $0["event"] as? String == "result" && $0["device"] as? String == device
                })
            else { return nil }
            return start..<end
        }
        let uploads = deviceStates.map { states -> Range<Int>? in
            guard let uploading = states.firstIndex(where: { $0.state == "uploading" }),
                uploading + 1 < states.count
            else { return nil }
            return states[uploading].index..<states[uploading + 1].index
        }
        let updateSpans = updates.compactMap { $0 }
        XCTAssertEqual(
            updateSpans.count, devices.count, "a device's update did not start and end", file: file,
            line: line)
        if let lastStart = updateSpans.map(\.lowerBound).max(),
            let firstEnd = updateSpans.map(\.upperBound).min()
        {
            XCTAssertLessThan(
                lastStart, firstEnd, "the updates did not all run at once", file: file, line: line)
        }
        let uploadSpans = uploads.compactMap { $0 }
        XCTAssertEqual(
            uploadSpans.count, devices.count, "a device's upload did not start and end", file: file,
            line: line)
        let overlapping = uploadSpans.indices.contains { first in
            uploadSpans.indices.contains { second in
                first != second && uploadSpans[first].overlaps(uploadSpans[second])
            }
        }
        XCTAssertTrue(overlapping, "the uploads ran one after another", file: file, line: line)
    }
}
