import DFUSupport
import FirmwareUpdate
import GATT
import NordicDFU
import XCTest

/// An update of a scripted bootloader, and what the device saw.
struct ScriptedUpdate<Bootloader: ScriptedBootloader> {
    let result: DFUResult
    let events: [DFUEvent]
    let link: ScriptedLink<Bootloader>

    var logs: String { EngineHarness.logs(events) }

    /// The op codes of the control-point requests, in order.
    var requestOpCodes: [UInt8] { link.requests.compactMap(\.first) }

    static func run(
        _ bootloader: Bootloader, services: (ScriptedLink<Bootloader>) -> [GATTService], package: DFUPackage,
        options: DFUOptions
    ) async -> ScriptedUpdate {
        let link = ScriptedLink(bootloader)
        let central = ScriptedCentral(link, services: services)
        let events = Locked<[DFUEvent]>([])
        let updater = DFUUpdater(
            package: package, central: central, device: .address(ScriptedCentral<Bootloader>.address),
            options: options)
        let result = await updater.run { event in events.withLock { $0.append(event) } }
        return ScriptedUpdate(result: result, events: events.withLock { $0 }, link: link)
    }
}

extension ScriptedUpdate where Bootloader == ScriptedSecureBootloader {
    static func secure(
        _ package: DFUPackage, options: DFUOptions, configure: (inout Bootloader) -> Void = { _ in }
    )
        async -> ScriptedUpdate
    {
        var bootloader = ScriptedSecureBootloader(imageSize: package.images[0].firmware.count)
        configure(&bootloader)
        return await run(
            bootloader, services: ScriptedCentral.secureServices, package: package, options: options)
    }

    /// Set PRN requests the engine wrote.
    var receiptIntervalRequests: Int {
        requestOpCodes.filter { $0 == SecureDFURequest.setPacketReceiptNotification(0).opCode }.count
    }

    /// The last Set PRN request the engine wrote, encoded.
    var lastReceiptInterval: [UInt8]? {
        link.requests.last { $0.first == SecureDFURequest.setPacketReceiptNotification(0).opCode }
    }

    /// Calculate Checksum requests the engine wrote.
    var checksumRequests: Int {
        requestOpCodes.filter { $0 == SecureDFURequest.calculateChecksum.opCode }.count
    }
}
