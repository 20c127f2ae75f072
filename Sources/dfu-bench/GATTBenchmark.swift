import ArgumentParser
import BlueZ
import DFUSupport
import Foundation
import GATT
import Synchronization

/// `dfu-bench gatt`: raw write-without-response throughput between two adapters of one host
/// (in practice the VM of scripts/vm/run.sh), through `AcquireWrite` and through `WriteValue`
/// (pipelined, and one call at a time), counted where the packets arrive. Prints JSON Lines, one per path and payload size.
struct GATTBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Write-without-response throughput through BlueZ (AcquireWrite and WriteValue).",
        discussion: """
            Serves a characteristic on --peripheral-adapter, connects to it from --adapter, and \
            sends write commands for --seconds per run. Rates are measured at the receiving \
            peripheral, from its first to its last packet. Example (in the VM): \
            scripts/vm/run.sh .build/release/dfu-bench gatt
            """)

    @Option(help: "The adapter of the central that writes.")
    var adapter = "hci0"

    @Option(help: "The adapter that serves the receiving characteristic.")
    var peripheralAdapter = "hci1"

    @Option(help: "How long each run sends, in seconds.")
    var seconds: Double = 3

    @Option(help: "Payload sizes in bytes, comma separated.")
    var sizes = "20,244"

    static let serviceUUID = BluetoothUUID("d0f00000-0000-4000-8000-00000000b0b0")!
    static let sinkUUID = BluetoothUUID("d0f00001-0000-4000-8000-00000000b0b0")!

    func run() async throws {
        let payloadSizes = sizes.split(separator: ",").compactMap { Int($0) }
        guard !payloadSizes.isEmpty, payloadSizes.allSatisfy({ (1...510).contains($0) }) else {
            throw ValidationError("--sizes must list payload sizes between 1 and 510")
        }
        let sink = ArrivalCounter()
        let server = try await BlueZGATTServer.start(
            adapter: peripheralAdapter,
            services: [
                LocalService(
                    uuid: Self.serviceUUID,
                    characteristics: [
                        LocalCharacteristic(
                            uuid: Self.sinkUUID, properties: [.writeWithoutResponse],
                            onWrite: { sink.record($0.count) })
                    ])
            ],
            // two identical advertisements: the controller rotates them, so btvirt reports them
            // again every second (it reports one advertisement only once)
            advertisements: Array(repeating: LocalAdvertisement(serviceUUIDs: [Self.serviceUUID]), count: 2))
        do {
            try await runAll(server: server, sink: sink, payloadSizes: payloadSizes)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func runAll(server: BlueZGATTServer, sink: ArrivalCounter, payloadSizes: [Int]) async throws {
        // WriteValue twice: pipelined (the default window) and one call at a time
        let paths = [
            ("acquire_write", true, BlueZCentral.Options().writeValueWindow),
            ("write_value", false, BlueZCentral.Options().writeValueWindow), ("write_value_serial", false, 1),
        ]
        for (name, acquire, window) in paths {
            var options = BlueZCentral.Options()
            options.acquireWrite = acquire
            options.writeValueWindow = window
            let central = try await BlueZCentral(adapter: adapter, options: options)
            let link = try await central.connectPeripheral(
                DeviceIdentifier(server.adapterAddress), timeout: .seconds(30))
            guard let characteristic = try await link.service(Self.serviceUUID)?.characteristic(Self.sinkUUID)
            else {
                throw GATTError.attributeNotFound("benchmark characteristic \(Self.sinkUUID)")
            }
            for size in payloadSizes {
                let result = try await measure(characteristic, size: size, sink: sink)
                print(result.jsonLine(path: name, payload: size))
            }
            await link.disconnect()
            await central.forget(server.adapterAddress)
        }
    }

    private func measure(_ characteristic: any GATTCharacteristic, size: Int, sink: ArrivalCounter)
        async throws
        -> RunResult
    {
        // one packet first, so that the socket and the link are set up outside the measurement
        sink.reset()
        try await characteristic.writeWithoutResponse([UInt8](repeating: 0, count: size))
        _ = try await sink.waitFor(count: 1, timeout: .seconds(10))
        sink.reset()
        let payload = [UInt8](repeating: 0xA5, count: size)
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .milliseconds(Int64(seconds * 1000))
        var sent = 0
        while clock.now < end {
            try await characteristic.writeWithoutResponse(payload)
            sent += 1
        }
        let sendTime = clock.now - start
        // whatever is still queued in bluetoothd arrives afterwards: wait for it (bounded)
        let arrived = try await sink.waitFor(count: sent, timeout: .seconds(120))
        return RunResult(sent: sent, senderSeconds: sendTime.seconds, arrival: arrived)
    }
}

/// Counts the packets that arrive at the serving characteristic.
final class ArrivalCounter: Sendable {
    struct Arrival: Sendable {
        var count = 0
        var bytes = 0
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?

        var seconds: Double {
            guard let first, let last else { return 0 }
            return (last - first).seconds
        }
    }
    private let state = Mutex(Arrival())

    func record(_ length: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.count += 1
            state.bytes += length
            if state.first == nil { state.first = now }
            state.last = now
        }
    }

    func reset() { state.withLock { $0 = Arrival() } }

    /// What has arrived once `count` packets have, or after `timeout`.
    func waitFor(count: Int, timeout: Duration) async throws -> Arrival {
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.count }) < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return state.withLock { $0 }
    }
}

/// One run's figures.
struct RunResult {
    var sent: Int
    var senderSeconds: Double
    var arrival: ArrivalCounter.Arrival

    func jsonLine(path: String, payload: Int) -> String {
        let seconds = arrival.seconds
        let packetsPerSecond = seconds > 0 ? Double(arrival.count - 1) / seconds : 0
        let bytesPerSecond = packetsPerSecond * Double(payload)
        return """
            {"benchmark":"gatt_write_without_response","path":"\(path)","payload":\(payload),\
            "sent":\(sent),"received":\(arrival.count),"receive_seconds":\(format(seconds)),\
            "packets_per_second":\(format(packetsPerSecond)),"bytes_per_second":\(format(bytesPerSecond)),\
            "sender_packets_per_second":\(format(Double(sent) / senderSeconds))}
            """
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
