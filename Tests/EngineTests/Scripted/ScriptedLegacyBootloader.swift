import NordicDFU

/// A stock SDK ≤ 11 Legacy DFU bootloader's transfer (`dfu_transport_ble.c`): the receipt
/// count restarts when receipts are requested and counts firmware packets only while more data
/// is expected (`app_data_process`): the packet that completes the image gets the Receive
/// Firmware Image response `10 03 01` and no receipt, whatever the interval.
struct ScriptedLegacyBootloader: ScriptedBootloader {
    private enum Expecting {
        case nothing
        case sizes
        case initPacket
        case firmware
    }

    private(set) var image: [UInt8] = []
    private(set) var initPacket: [UInt8] = []
    private(set) var resets = false
    private(set) var receiptsSent = 0

    private var expecting = Expecting.nothing
    private var imageSize = 0
    private var interval = 0
    private var counted = 0

    mutating func controlPoint(_ bytes: [UInt8]) -> [[UInt8]] {
        guard let request = try? LegacyDFURequest(decoding: bytes) else { return [] }
        switch request {
        case .startDFU:
            expecting = .sizes
            return []
        case .initParametersBegin:
            expecting = .initPacket
            return []
        case .initParametersComplete:
            expecting = .nothing
            return [response(to: request, .success)]
        case .packetReceiptNotificationRequest(let n):
            interval = Int(n)
            counted = 0
            return []
        case .receiveFirmwareImage:
            expecting = .firmware
            return []
        case .validateFirmware:
            return [response(to: request, image.count == imageSize ? .success : .crcError)]
        case .activateAndReset:
            resets = true
            return []
        default:
            return [response(to: request, .notSupported)]
        }
    }

    mutating func packet(_ bytes: [UInt8]) -> [[UInt8]] {
        switch expecting {
        case .sizes:
            guard let sizes = LegacyImageSizes(decoding: bytes) else { return [] }
            imageSize = Int(sizes.softdevice + sizes.bootloader + sizes.application)
            expecting = .nothing
            return [response(to: .startDFU(.application), .success)]
        case .initPacket:
            initPacket += bytes
            return []
        case .firmware:
            image += bytes
            if image.count == imageSize {
                expecting = .nothing
                return [response(to: .receiveFirmwareImage, .success)]
            }
            guard interval > 0 else { return [] }
            counted += 1
            guard counted == interval else { return [] }
            counted = 0
            receiptsSent += 1
            return [LegacyDFUResponse.packetReceipt(bytesReceived: UInt32(image.count)).encoded]
        case .nothing:
            return []
        }
    }

    private func response(to request: LegacyDFURequest, _ status: LegacyDFUStatus) -> [UInt8] {
        LegacyDFUResponse.response(opCode: request.opCode, status: status).encoded
    }
}
