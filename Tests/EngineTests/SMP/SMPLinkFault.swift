import GATT
import GATTTesting
import MCUmgr

/// What goes wrong on the SMP characteristic of one connection.
enum SMPLinkFault: Sendable {
    /// The link drops at the first image state read (SMP group 1, command 0, read), as a link
    /// lost while the engine checks a device after its reset.
    case dropAtStateRead
    /// The answer to the upload chunk that ends at `offset` never arrives.
    case loseUploadAnswer(offset: Int)

    /// `central`, whose `connection`-th connection (counted from 1) suffers this fault.
    func central(_ central: any GATTCentral, onConnection connection: Int) -> FakeCentral {
        FakeCentral.changing(central, link: connection) { link in
            FakePeripheral(
                link,
                changingEach: { characteristic in
                    characteristic.uuid == SMPUUIDs.characteristic
                        ? fault(characteristic, on: link) : characteristic
                })
        }
    }

    private func fault(_ characteristic: any GATTCharacteristic, on link: any GATTPeripheral)
        -> FakeCharacteristic
    {
        switch self {
        case .dropAtStateRead:
            // header: op (low 3 bits) 0 = read, group 1 = image (big-endian), command 0 = state
            return .droppingLink(link, on: characteristic) { value in
                value.count >= SMPHeader.size && value[0] & 0x07 == 0 && value[4] == 0 && value[5] == 1
                    && value[7] == 0
            }
        case .loseUploadAnswer(let offset):
            // each answer here fits one notification
            return .losingNotification(characteristic) { value in
                let answer = (try? SMPResponse(frame: SMPFrame(decoding: value))).flatMap {
                    try? ImageUploadResponse($0)
                }
                return answer?.offset == UInt32(offset)
            }
        }
    }
}
