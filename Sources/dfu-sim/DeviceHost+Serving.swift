import BlueZ
import DFUSimulator
import DFUSupport
import GATT
import NordicDFU

/// Serving a persona: its GATT table on a bluetoothd server and its advertisement, at its own
/// address when the adapter lets `dfu-sim` advertise there.
extension DeviceHost {
    func serve(_ persona: RealTimeDevice.Persona) async throws {
        let services = persona.services.map { service in
            LocalService(
                uuid: service.uuid, characteristics: service.characteristics.map(localCharacteristic))
        }
        let advertisement = LocalAdvertisement(
            localName: persona.name, serviceUUIDs: persona.advertisedServices)
        var shown = persona.address.description
        var advertiser: StaticAddressAdvertiser?
        if persona.address != BluetoothAddress(links.adapterAddress) {
            do {
                advertiser = try StaticAddressAdvertiser(adapter: links.adapterName)
            } catch {
                reporter.warning(
                    "cannot advertise at \(shown) (\(error)); advertising at the adapter's address instead")
                shown = links.adapterAddress
            }
        }
        func startServer() async throws -> BlueZGATTServer {
            try await BlueZGATTServer.start(
                adapter: links.adapterName, services: services,
                advertisements: advertiser == nil ? [advertisement, advertisement] : [])
        }
        var server = try await startServer()
        do {
            try advertiser?.start(address: persona.address, advertisement: advertisement)
        } catch {
            // The raw channel opens for anyone; its advertising commands need CAP_NET_RAW.
            reporter.warning(
                "cannot advertise at \(shown) (\(error)); advertising at the adapter's address instead")
            advertiser?.stop()
            advertiser = nil
            shown = links.adapterAddress
            await server.stop()
            server = try await startServer()
        }
        state.withLock { state in
            state.server = server
            state.advertiser = advertiser
            state.shownAddress = shown
        }
        reporter.advertising(address: shown, name: persona.name, mode: persona.mode)
    }

    private func localCharacteristic(_ characteristic: RealTimeDevice.Persona.Characteristic)
        -> LocalCharacteristic
    {
        let uuid = characteristic.uuid
        let writable = !characteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse])
        let onWrite: LocalCharacteristic.WriteHandler = { [self] value in received(uuid, value) }
        let onRead: LocalCharacteristic.ReadHandler = { [device] in device.read(uuid) ?? [] }
        return LocalCharacteristic(
            uuid: uuid, properties: characteristic.properties, onWrite: writable ? onWrite : nil,
            onRead: characteristic.properties.contains(.read) ? onRead : nil,
            acquiresWrites: uuid == Self.socketWrittenCharacteristic,
            // the update's characteristics, as Zephyr's SMP and the nRF5 SDK's DFU service lock them
            security: writable ? security : .open)
    }

    /// Packets reach the device through a socket (`AcquireWrite`) rather than one D-Bus call each
    /// only on the Legacy packet characteristic: its first write (the image sizes) is answered
    /// before the next one comes, which bluetoothd 5.66 needs to hand over the socket without
    /// garbling writes (`LocalCharacteristic.acquiresWrites`). A Secure init packet is followed
    /// at once by Calculate Checksum, so the Secure packet characteristic keeps the calls.
    private static let socketWrittenCharacteristic = DFUUUIDs().legacyPacket

    func stopServing() async {
        let (server, advertiser) = state.withLock { state in
            defer {
                state.server = nil
                state.advertiser = nil
            }
            return (state.server, state.advertiser)
        }
        advertiser?.stop()
        await server?.stop()
    }
}
