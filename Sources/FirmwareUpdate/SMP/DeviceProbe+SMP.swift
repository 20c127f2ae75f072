import DFUSupport
import GATT
import MCUmgr

extension DeviceProbe {
    /// What an SMP device tells of itself through requests that only read (`img_mgmt_state_read`,
    /// `os_mgmt_bootloader_info`): the version of the image it runs (image 0's active slot), the
    /// image layout its list shows, and its bootloader's name and mode. Nil fields without an SMP
    /// characteristic, without an answer within `timeout` (real time), or for a question the
    /// device answers with an error (a command not built in).
    static func readSMP(in services: [GATTService], timeout: Duration) async -> (
        version: String?, layout: SMPImageLayout?, bootloader: SMPBootloader?
    ) {
        // the list first: a device that leaves a question unanswered ends the exchange
        let requests: [SMPRequest] = [
            .imageState, .bootloaderInfo(query: nil), .bootloaderInfo(query: BootloaderInfo.modeQuery),
        ]
        let answers = await smpAnswers(to: requests, in: services, timeout: timeout)
        let list = answers[.imageState].flatMap { try? ImageStateResponse($0) }
        let running = list?.images.first { $0.image == 0 && $0.active }?.version
        let bootloader = SMPBootloader(
            nameAnswer: answers[.bootloaderInfo(query: nil)],
            modeAnswer: answers[.bootloaderInfo(query: BootloaderInfo.modeQuery)])
        return (running, list.flatMap(SMPImageLayout.init), bootloader)
    }

    /// The answers to `requests`, sent one after the other on one subscription; a request
    /// without an answer within `timeout` ends the exchange (the rest stay unasked).
    private static func smpAnswers(to requests: [SMPRequest], in services: [GATTService], timeout: Duration)
        async -> [SMPRequest: SMPResponse]
    {
        guard let characteristic = SMPUUIDs.characteristic(in: services) else { return [:] }
        let answers = Locked<[SMPRequest: SMPResponse]>([:])
        try? await withRealTimeout(timeout, waitingFor: "the SMP answers") {
            let notifications = try await characteristic.subscribe(timeout: timeout)
            var iterator = notifications.makeAsyncIterator()
            var reassembler = SMPReassembler()
            for (sequence, request) in requests.enumerated() {
                try await characteristic.writeWithoutResponse(
                    request.frame(sequence: UInt8(sequence)).encoded)
                answer: while let value = try await iterator.next() {
                    for frame in try reassembler.append(value) where frame.header.sequence == UInt8(sequence)
                    {
                        answers.withLock { $0[request] = try? SMPResponse(frame: frame) }
                        break answer
                    }
                }
            }
        }
        return answers.withLock { $0 }
    }
}
