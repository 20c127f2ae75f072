import NordicDFU

/// An SDK 15–17 Secure DFU bootloader as far as the transfer goes (`nrf_dfu_ble.c`,
/// `nrf_dfu_req_handler.c`): the receipt count restarts on Set PRN and on Create and counts
/// every packet the bootloader handles, a failed one included. It accepts any init packet.
struct ScriptedSecureBootloader: ScriptedBootloader {
    /// The data object size Select (data) reports (every Nordic bootloader's is 4096).
    var objectSize = 4096

    /// The image's size: executing the object that ends there makes the bootloader reset.
    var imageSize: Int
    /// Data packets (1-based, in the order written) the bootloader drops for want of a buffer.
    var droppedPackets: Set<Int> = []
    /// Whether a dropped packet still counts towards the next receipt. The SDK's transport
    /// drops it before the request handler sees it, so it does not count (false).
    var countsDroppedPackets = false
    /// A bootloader that counts differently: it never sends a receipt.
    var sendsReceipts = true
    /// Another that counts differently: Create does not restart its count (Set PRN does).
    var restartsCountOnCreate = true
    /// A bootloader without room for the image: Create (data) is answered Insufficient Resources.
    var refusesDataObjects = false

    private(set) var image: [UInt8] = []
    private(set) var executedImage = 0
    private(set) var resets = false
    private(set) var dataPacketsWritten = 0

    private var interval = 0
    private var counted = 0
    private var isCommand = true
    private var command: [UInt8] = []
    private var objectEnd = 0

    init(imageSize: Int) { self.imageSize = imageSize }

    mutating func controlPoint(_ bytes: [UInt8]) -> [[UInt8]] {
        guard let request = try? SecureDFURequest(decoding: bytes) else { return [] }
        let outcome: SecureDFUResponse.Outcome
        switch request {
        case .select(let type):
            isCommand = type == .command
            let (offset, crc) = checksum
            outcome = .selected(maximumSize: UInt32(objectSize), offset: offset, crc: crc)
        case .create(.data, _) where refusesDataObjects:
            counted = 0
            isCommand = false
            outcome = .failure(.insufficientResources, extended: nil)
        case .create(let type, let size):
            if restartsCountOnCreate { counted = 0 }
            isCommand = type == .command
            if isCommand {
                command = []
            } else {
                image.removeLast(image.count - executedImage)
                objectEnd = executedImage + Int(size)
            }
            outcome = .success
        case .setPacketReceiptNotification(let n):
            interval = Int(n)
            counted = 0
            outcome = .success
        case .calculateChecksum:
            let (offset, crc) = checksum
            outcome = .checksum(offset: offset, crc: crc)
        case .execute:
            if isCommand {
                outcome = .success
            } else if image.count == objectEnd, objectEnd > executedImage {
                executedImage = objectEnd
                resets = executedImage == imageSize
                outcome = .success
            } else {
                outcome = .failure(.operationNotPermitted, extended: nil)
            }
        default:
            outcome = .failure(.opCodeNotSupported, extended: nil)
        }
        return [SecureDFUResponse(opCode: request.opCode, outcome: outcome).encoded]
    }

    mutating func packet(_ bytes: [UInt8]) -> [[UInt8]] {
        var result = SecureDFUResultCode.success
        if isCommand {
            command += bytes
        } else {
            dataPacketsWritten += 1
            if droppedPackets.contains(dataPacketsWritten) {
                guard countsDroppedPackets else { return [] }
            } else if image.count + bytes.count > objectEnd {
                result = .invalidParameter
            } else {
                image += bytes
            }
        }
        guard interval > 0, sendsReceipts else { return [] }
        counted += 1
        guard counted == interval else { return [] }
        counted = 0
        let (offset, crc) = checksum
        let outcome: SecureDFUResponse.Outcome =
            result == .success ? .checksum(offset: offset, crc: crc) : .failure(result, extended: nil)
        return [
            SecureDFUResponse(opCode: SecureDFURequest.calculateChecksum.opCode, outcome: outcome).encoded
        ]
    }

    private var checksum: (UInt32, UInt32) {
        isCommand
            ? (UInt32(command.count), CRC32.checksum(command)) : (UInt32(image.count), CRC32.checksum(image))
    }
}
