import GATT
import NordicDFU

/// A response a bootloader notifies on its control point.
protocol ControlPointResponse {
    var encoded: [UInt8] { get }
}

extension SecureDFUResponse: ControlPointResponse {}
extension LegacyDFUResponse: ControlPointResponse {}

/// What the simulated Secure and Legacy bootloaders share: a control point whose writes are
/// decoded into a request or rejected with a response, a packet characteristic, responses
/// notified on the control point, and resets. `write(_:_:at:core:)` is the one entry point.
protocol Bootloader: Sendable {
    associatedtype Request
    associatedtype Rejection: Error
    associatedtype Response: ControlPointResponse

    static var controlPoint: BluetoothUUID { get }
    static var packetCharacteristic: BluetoothUUID { get }

    /// Decodes a control point write as the bootloader's transport does.
    static func request(decoding bytes: [UInt8]) throws(Rejection) -> Request
    /// The response to a write that does not decode.
    static func response(rejecting rejection: Rejection) -> Response

    /// Acts on a decoded control point request.
    mutating func handle(_ request: Request, at time: Nanoseconds, core: inout DeviceCore) -> DeviceOutput
    /// Acts on a write to the packet characteristic.
    mutating func receivePacket(_ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore)
        -> DeviceOutput
}

extension Bootloader {
    mutating func write(
        _ characteristic: BluetoothUUID, _ bytes: [UInt8], at time: Nanoseconds, core: inout DeviceCore
    ) -> DeviceOutput {
        guard characteristic != Self.packetCharacteristic else {
            return receivePacket(bytes, at: time, core: &core)
        }
        let request: Request
        do {
            request = try Self.request(decoding: bytes)
        } catch {
            return respond(Self.response(rejecting: error), at: time)
        }
        return handle(request, at: time, core: &core)
    }

    /// `response` on the control point, once the device is ready at `time`.
    func respond(_ response: Response, at time: Nanoseconds) -> DeviceOutput {
        .notify(Self.controlPoint, response.encoded, at: time)
    }

    /// `response` as a notification to add to other output.
    func notification(_ response: Response, at time: Nanoseconds) -> PendingNotification {
        PendingNotification(characteristic: Self.controlPoint, value: response.encoded, readyAt: time)
    }
}
