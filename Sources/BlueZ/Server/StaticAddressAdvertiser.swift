import DFUSupport
import Foundation
import GATT

/// Advertises (connectable, undirected) from a random static address on one controller, with raw
/// HCI commands beside the kernel: LE Set Random Address, LE Set Advertising Parameters (own
/// address random), advertising data, enable. The adapter's identity stays untouched, so
/// bluetoothd serves its registered GATT applications on links to this address; a central sees
/// the random address (docs/dfu-sim.md, "Address + 1"). Needs root (raw HCI socket).
///
/// Advertising is switched off and on again every second: some controllers (btvirt) report an
/// advertiser to scanners only when advertising starts. That refresh checks, under the same lock
/// as its commands, that advertising is still wanted: once `stop()` has switched it off, nothing
/// switches it on again behind the kernel, which advertises for bluetoothd on the same
/// controller next (the application's advertisement after the bootloader's reset).
public final class StaticAddressAdvertiser: Sendable {

    /// The raw channel, and whether the refresh may switch advertising on.
    private struct Controller {
        let socket: KernelSocket
        var advertising = false
        var paused = false
    }

    private let controller: Locked<Controller>
    private let refresher = Locked<Task<Void, Never>?>(nil)

    /// Opens the raw HCI channel of `adapter` (`hciN`); throws without root.
    public init(adapter: String) throws {
        guard adapter.hasPrefix("hci"), let index = UInt16(adapter.dropFirst(3)) else {
            throw GATTError.bluetoothUnavailable(
                "raw advertising needs an adapter named hciN, not \(adapter)")
        }
        controller = Locked(Controller(socket: try KernelSocket(.raw, controller: index)))
    }

    /// Starts advertising `advertisement` from `address`.
    public func start(address: BluetoothAddress, advertisement: LocalAdvertisement) throws {
        let data = Self.advertisingData(advertisement)
        try controller.withLock { controller in
            let kernel = controller.socket
            try kernel.send(.leSetAdvertisingEnable(false))
            try kernel.send(.leSetRandomAddress(address))
            try kernel.send(.leSetAdvertisingParameters(interval: 0x00A0))  // 100 ms
            try kernel.send(.leSetAdvertisingData(data))
            try kernel.send(.leSetAdvertisingEnable(true))
            controller.advertising = true
        }
        let controller = controller
        let task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                controller.withLock { controller in
                    guard controller.advertising, !controller.paused else { return }
                    try? controller.socket.send(.leSetAdvertisingEnable(false))
                    try? controller.socket.send(.leSetAdvertisingEnable(true))
                }
            }
        }
        refresher.withLock { $0 = task }
    }

    /// While a central is connected the controller does not advertise; do not switch it back on.
    public func setPaused(_ isPaused: Bool) {
        controller.withLock { $0.paused = isPaused }
    }

    /// Stops advertising, for good: a refresh under way finds it stopped.
    public func stop() {
        refresher.withLock { $0?.cancel() }
        controller.withLock { controller in
            controller.advertising = false
            try? controller.socket.send(.leSetAdvertisingEnable(false))
        }
    }

    /// Flags (LE general discoverable, no BR/EDR), the complete service UUID lists, then the
    /// name, shortened to what fits in 31 bytes.
    static func advertisingData(_ advertisement: LocalAdvertisement) -> [UInt8] {
        var data: [UInt8] = [0x02, 0x01, 0x06]
        let short = advertisement.serviceUUIDs.compactMap(\.shortValue)
        if !short.isEmpty {
            data += [UInt8(1 + 2 * short.count), 0x03] + short.flatMap(KernelSocket.littleEndian)
        }
        for uuid in advertisement.serviceUUIDs where uuid.shortValue == nil {
            data += [17, 0x07] + uuid.wireOrder
        }
        if let name = advertisement.localName, data.count + 2 < 31 {
            let bytes = Array(name.utf8)
            let room = 31 - data.count - 2
            data +=
                [UInt8(min(bytes.count, room) + 1), bytes.count > room ? 0x08 : 0x09] + bytes.prefix(room)
        }
        return data
    }
}

extension BluetoothUUID {
    /// The 16 bytes of the full UUID, least significant first (as advertising data carries them).
    var wireOrder: [UInt8] {
        let hex = Array(uuidString.filter(\.isHexDigit).utf8)
        return stride(from: 0, to: hex.count, by: 2).map {
            UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }.reversed()
    }
}
