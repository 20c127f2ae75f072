import GATT
import NordicDFU

/// The RAM state and behaviour of an SDK 15–17 Secure DFU bootloader over BLE (protocol doc
/// §2.2–2.7, §2.11; docs/simulator.md lists each behaviour with the SDK function it follows).
/// Progress lives here: kept across a disconnect, lost with the value on reset.
struct SecureBootloader: Bootloader {
    typealias Response = SecureDFUResponse

    /// `DATA_OBJECT_MAX_SIZE` (`nrf_dfu_req_handler.c`): one flash page.
    static let dataObjectMaximumSize = 4096

    private static let uuids = DFUUUIDs()
    static var controlPoint: BluetoothUUID { uuids.secureControlPoint }
    static var packetCharacteristic: BluetoothUUID { uuids.securePacket }

    /// The PRN interval and the writes left until the next PRN (`nrf_dfu_ble.c`).
    var prn: UInt16
    var prnCountdown: UInt16
    /// Select and Create choose the object that packets, Calculate Checksum and Execute act on.
    var currentObject: SecureObjectType = .command

    var command: [UInt8] = []
    /// The size announced by the last Create(command); 0 before any.
    var commandSize = 0
    var commandCRC = CRC32()
    var accepted: SecureInitCheck.Accepted?

    var staging: StagingArea?
    var dataCRC = CRC32()
    /// The end of the last executed data object, and the CRC up to it: what Create rolls back to.
    var executedOffset = 0
    var executedCRC = CRC32()
    /// The size of the object created last; 0 once it is executed.
    var objectSize = 0

    var dataOffset: Int { staging?.count ?? 0 }

    /// Built with `NRF_DFU_BLE_REQUIRES_BONDS`: entered from an application that handed it its
    /// bond, it keeps the address and serves DFU on an encrypted link only (`nrf_dfu_ble.c`).
    let requiresBonds: Bool

    /// A bootloader that has just started; `prn` carries the setting over when an update restarts.
    init(prn: UInt16 = 0, requiresBonds: Bool = false) {
        self.prn = prn
        self.requiresBonds = requiresBonds
        prnCountdown = prn
    }

    static func request(decoding bytes: [UInt8]) throws(SecureDFURequest.Rejection) -> SecureDFURequest {
        try SecureDFURequest(decoding: bytes)
    }

    /// An object type other than command or data is Invalid Object (`nrf_dfu_obj_op`).
    static func response(rejecting rejection: SecureDFURequest.Rejection) -> SecureDFUResponse {
        let result: SecureDFUResultCode =
            rejection.result == .unsupportedType ? .invalidObject : rejection.result
        return SecureDFUResponse(opCode: rejection.opCode, outcome: .failure(result, extended: nil))
    }

    // MARK: Control point

    mutating func handle(_ request: SecureDFURequest, at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
    {
        let opCode = request.opCode
        switch request {
        case .select(let type):
            currentObject = type
            let maximumSize =
                type == .command ? core.configuration.commandObjectMaximumSize : Self.dataObjectMaximumSize
            let (offset, crc) = checksum()
            return respond(
                opCode, .selected(maximumSize: UInt32(maximumSize), offset: offset, crc: crc), at: time)
        case .create(let type, let size):
            // The transport restarts the PRN count on every Create, whatever its outcome.
            prnCountdown = prn
            currentObject = type
            let outcome =
                type == .command
                ? createCommand(size: Int(size), core: core)
                : createData(size: Int(size), at: time, core: &core)
            return respond(opCode, outcome, at: time)
        case .setPacketReceiptNotification(let n):
            prn = n
            prnCountdown = n
            return respond(opCode, .success, at: time)
        case .calculateChecksum:
            let (offset, crc) = checksum()
            return respond(opCode, .checksum(offset: offset, crc: core.reportedChecksum(crc)), at: time)
        case .execute:
            return currentObject == .command
                ? executeCommand(at: time, core: &core) : executeData(at: time, core: &core)
        case .abort:
            return .reset(to: .applicationIfValid)
        case .protocolVersion, .getMTU, .ping, .getHardwareVersion, .getFirmwareVersion:
            // The stock BLE transport answers these without their payload (§2.2).
            return respond(opCode, .success, at: time)
        }
    }

    func respond(_ opCode: UInt8, _ outcome: SecureDFUResponse.Outcome, at time: Nanoseconds) -> DeviceOutput
    {
        respond(SecureDFUResponse(opCode: opCode, outcome: outcome), at: time)
    }

    /// The offset and CRC of the current object's stream: the init command, or the image.
    func checksum() -> (offset: UInt32, crc: UInt32) {
        currentObject == .command
            ? (UInt32(command.count), commandCRC.value) : (UInt32(dataOffset), dataCRC.value)
    }
}
