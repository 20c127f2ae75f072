import GATT

/// One protocol family's side of a device: how its services are recognised (the same detection
/// an update of the family uses), which advertised service names it, and what the one probe
/// (`DeviceProbe`) reads of its devices besides. Each family's conformer lives in its folder;
/// `DFUOptions.deviceFamilies` lists them in the order a device is asked.
protocol DeviceFamily: Sendable {
    /// What `services` offer of this family; nil when nothing, and the next family is asked.
    /// Reads from the device within `timeout` where the family's detection needs a value.
    func support(in services: [GATTService], timeout: Duration) async throws -> DFUDeviceSupport?

    /// This family's protocol that advertised `serviceUUIDs` name; nil for none of its services.
    func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID]) -> DFUProtocol?

    /// Adds to `probe` what a device of this family tells besides its support, from `services`,
    /// each read within `timeout`; `probe` holds the shared reads so far (the version from
    /// `DFUOptions.versionCharacteristic`).
    func read(into probe: inout DeviceProbe, services: [GATTService], timeout: Duration) async throws
}

extension DeviceFamily {
    /// A family whose devices tell nothing besides their support adds nothing.
    func read(into probe: inout DeviceProbe, services: [GATTService], timeout: Duration) async throws {}
}

extension DFUOptions {
    /// Every family's device side, in the order a device is asked; a new family adds its own here,
    /// beside its options group. Nordic DFU comes first, then SMP: a device offering both is
    /// reported as Nordic's (Secure before Legacy before SMP, as `advertisedProtocol` has always
    /// named them), Nordic's detection reads the Legacy DFU Version and fails on a bad one before
    /// any other family can claim the device, and SMP's probe sends its requests only to a device
    /// no Nordic service claimed.
    var deviceFamilies: [any DeviceFamily] { [NordicDeviceFamily(nordic), SMPDeviceFamily()] }
}

extension DFUDeviceSupport {
    /// The first of `families` that `services` offer, with what they offer of it; nil for none.
    static func detect(in services: [GATTService], families: [any DeviceFamily], timeout: Duration)
        async throws -> (family: any DeviceFamily, support: DFUDeviceSupport)?
    {
        for family in families {
            if let support = try await family.support(in: services, timeout: timeout) {
                return (family, support)
            }
        }
        return nil
    }

    /// The protocol of the first of `families` that `serviceUUIDs` name; nil for none.
    static func advertisedProtocol(_ serviceUUIDs: [BluetoothUUID], families: [any DeviceFamily])
        -> DFUProtocol?
    {
        families.lazy.compactMap { $0.advertisedProtocol(serviceUUIDs) }.first
    }
}
