import GATT
import MCUmgr

extension DeviceProbe {
    /// The version of the image an SMP device runs (image 0's active slot), from one image state
    /// read (`img_mgmt_state_read`, which changes nothing on the device): what a device without a
    /// Device Information Service reports. Nil without an SMP characteristic, without an answer
    /// within `timeout` (real time), or without a running image in the answer.
    static func runningImageVersion(in services: [GATTService], timeout: Duration) async -> String? {
        guard let characteristic = SMPUUIDs.characteristic(in: services) else { return nil }
        do {
            return try await withRealTimeout(timeout, waitingFor: "the image list") {
                let notifications = try await characteristic.subscribe(timeout: timeout)
                try await characteristic.writeWithoutResponse(
                    SMPRequest.imageState.frame(sequence: 0).encoded)
                var reassembler = SMPReassembler()
                for try await value in notifications {
                    guard let frame = try reassembler.append(value).first else { continue }
                    let state = try ImageStateResponse(try SMPResponse(frame: frame))
                    return state.images.first { $0.image == 0 && $0.active }?.version
                }
                return nil
            }
        } catch {
            return nil
        }
    }
}
