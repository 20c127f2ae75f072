import GATT

extension RealTimeDevice {
    /// What the device runs and presents to centrals now: its GATT table and advertisement.
    public struct Persona: Equatable, Sendable {
        /// A characteristic of the GATT table.
        public struct Characteristic: Equatable, Sendable {
            public var uuid: BluetoothUUID
            public var properties: CharacteristicProperties
        }

        /// A primary service of the GATT table.
        public struct Service: Equatable, Sendable {
            public var uuid: BluetoothUUID
            public var characteristics: [Characteristic]
        }

        /// The address it advertises at: the application's, or (a bootloader entered without
        /// bond data) that address with its last octet incremented.
        public var address: BluetoothAddress
        public var name: String
        public var mode: DeviceSnapshot.Mode
        public var services: [Service]
        /// The service UUIDs it advertises.
        public var advertisedServices: [BluetoothUUID]

        init(_ device: SimulatedDevice) {
            address = device.address
            name = device.advertisedName
            mode = device.firmware.isBootloader ? .bootloader : .application
            services = device.firmware.services.map { service in
                Service(
                    uuid: service.uuid,
                    characteristics: service.characteristics.map {
                        Characteristic(uuid: $0.uuid, properties: $0.properties)
                    })
            }
            advertisedServices = device.firmware.advertisedServices
        }
    }

    /// What the device does about one write, besides changing its own state.
    public struct Reaction: Sendable {
        /// A value to notify (or indicate) once `after` has passed since the write.
        public struct Notification: Sendable {
            public var characteristic: BluetoothUUID
            public var value: [UInt8]
            public var after: Duration
        }

        /// In order; lost ones (`drop-notification`) are left out.
        public var notifications: [Notification] = []
        /// The device drops the link once the notifications are out (a `disconnect-at` fault or a
        /// reset).
        public var dropsLink = false
        /// Set when the device resets: how long after the link drops it advertises again (image
        /// copy and boot). Then call `reboot()`.
        public var rebootDelay: Duration?

        public var reboots: Bool { rebootDelay != nil }
    }
}
