import GATT
import MCUmgr

/// Uploads one MCUboot image file over SMP: the first chunk alone (it names the file, so a device
/// holding an interrupted upload of it answers with its offset, and a fresh upload waits for the
/// slot's erase), then a window of chunks in flight, each as large as the device's buffer and
/// the link allow, steered by `SMPUploadWindow`. Reports progress as the device's answers arrive.
struct SMPImageUpload {
    let channel: SMPChannel
    let session: UpdateSession
    let image: MCUbootImage
    /// MCUboot's image number.
    let imageNumber: Int
    let parameters: MCUmgrParameters
    let meter: ProgressMeter

    private var file: [UInt8] { image.bytes }

    /// Answers that may go missing in a row before the upload fails (the link then drops or the
    /// device stalls; a reconnection resumes).
    static let lostAnswerLimit = 3

    /// How long the first chunk's answer may take: the device erases the slot before it answers
    /// (docs/mcumgr.md), about 85 ms per 4 KiB page on an nRF52; twice that, above the usual bound.
    var firstAnswerTimeout: Duration {
        session.options.responseTimeout + .milliseconds(170 * (file.count / 4096 + 1))
    }

    /// Runs the upload; returns the device's `match` after the last chunk, when it sent one.
    func run() async throws -> Bool? {
        let frameLimit = channel.frameLimit(bufferSize: Int(parameters.bufferSize))
        let (start, firstCount) = try firstChunk(frameLimit: frameLimit)
        let first = ImageUploadChunk(first: Array(file[0..<firstCount]), start: start)
        let firstAnswer = try await upload(first, timeout: firstAnswerTimeout)
        let resumedAt = Int(firstAnswer.offset)
        if resumedAt > firstCount {
            session.log(.info, "the device holds \(resumedAt) bytes of this image: resuming there")
        } else {
            record(0..<firstCount)
        }
        if let report = meter.start(at: min(resumedAt, file.count)) { session.emit(.progress(report)) }
        var window = SMPUploadWindow(
            length: file.count, capacity: Self.windowCapacity(parameters), from: Int(firstAnswer.offset))
        return try await stream(&window, frameLimit: frameLimit, match: firstAnswer.match)
    }

    /// What the first chunk carries and how much of the file: with the file's SHA-256 (so that
    /// the upload can resume) when the frame has room for it and the image's header, else
    /// without it.
    private func firstChunk(frameLimit: Int) throws -> (ImageUploadChunk.Start, Int) {
        let needed = min(file.count, MCUbootHeader.size)
        for sha256 in [image.fileSHA256, nil] {
            let start = ImageUploadChunk.Start(
                image: UInt32(imageNumber), length: UInt32(file.count), sha256: sha256)
            let room = ImageUploadChunk.maximumDataCount(frameLimit: frameLimit, offset: 0, start: start)
            guard room >= needed else { continue }
            if sha256 == nil {
                session.log(
                    .info,
                    "no room for the file's SHA-256 in a \(frameLimit)-byte frame: this upload cannot resume")
            }
            return (start, min(file.count, room))
        }
        throw session.failure(
            .deviceNotSupported,
            "one SMP frame here holds at most \(frameLimit) bytes (the link's writes, the device's "
                + "\(parameters.bufferSize)-byte buffer), too few for an image's first chunk with its "
                + "\(MCUbootHeader.size)-byte header: the device needs a larger ATT MTU or SMP reassembly")
    }

    /// Chunks in flight at most: two of the device's buffers stay free. Zephyr's transport
    /// (`smp_bt.c`) takes requests and answers from one pool, and `smp_bt_tx_pkt` keeps an answered
    /// request's buffer and its answer's until the notification is reported sent
    /// (`smp_notify_sem`), which the link layer learns from the central's next packet: the one
    /// that may carry the next chunk. A chunk whose first write finds no buffer is lost whole.
    static func windowCapacity(_ parameters: MCUmgrParameters) -> Int {
        max(1, Int(parameters.bufferCount) - 2)
    }

    /// How long the upload waits for the answer to its last chunk, when nothing else is in
    /// flight, before asking for the image list (a probe: the slot lists the image only once its
    /// last chunk is written) rather than waiting the whole response timeout. Sending the chunk
    /// again would not do: a device that took it has ended the upload and answers offset 0.
    static let lastAnswerProbe: Duration = .milliseconds(500)

    private func stream(_ window: inout SMPUploadWindow, frameLimit: Int, match: Bool?) async throws -> Bool?
    {
        var match = match
        var lostInARow = 0
        var unanswered = Duration.zero
        /// The sequence number of the image list asked for as a probe, until it is answered.
        var probe: UInt8?
        while !window.isComplete {
            try await session.controller.checkpoint()
            while window.canSend {
                let offset = window.nextOffset
                let room = ImageUploadChunk.maximumDataCount(
                    frameLimit: frameLimit, offset: UInt32(offset), start: nil)
                let end = min(file.count, offset + room)
                let chunk = ImageUploadChunk(offset: UInt32(offset), data: Array(file[offset..<end]))
                let sequence = try await channel.send(.imageUpload(chunk))
                record(offset..<end)
                window.sent(sequence: sequence, count: end - offset)
            }
            let response: SMPResponse
            let timeout = session.options.responseTimeout
            let probing =
                probe == nil && window.onlyTheLastChunkInFlight && unanswered + Self.lastAnswerProbe < timeout
            do {
                response = try await channel.nextResponse(
                    timeout: probing ? Self.lastAnswerProbe : timeout - unanswered,
                    waitingFor: "the answer to an upload chunk")
            } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed && probing {
                unanswered += Self.lastAnswerProbe
                session.log(.verbose, "no answer to the last chunk yet: asking for the image list")
                probe = try await channel.send(.imageState)
                continue
            } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed {
                unanswered = .zero
                probe = nil
                lostInARow += 1
                guard lostInARow < Self.lostAnswerLimit else { throw failure }
                session.log(
                    .info, "no answer to the chunks in flight; sending again from \(window.confirmed)")
                window.answersLost()
                continue
            }
            lostInARow = 0
            unanswered = .zero
            if response.header.sequence == probe {
                probe = nil
                if try slotHoldsImage(response) {
                    window.completed()
                } else {
                    session.log(.info, "the last chunk was lost: sending it again")
                    window.answersLost()
                }
                continue
            }
            let answer = try uploadAnswer(response)
            switch window.answered(sequence: response.header.sequence, expectedOffset: Int(answer.offset)) {
            case .accepted: match = answer.match ?? match
            case .rewound(let offset):
                session.log(.verbose, "the device expects offset \(offset): going back")
            case .busy(let offset):
                session.log(.verbose, "the device's storage is busy: sending offset \(offset) again")
            case .stale, .unknown: break
            }
            if let report = meter.update(window.confirmed) { session.emit(.progress(report)) }
        }
        return match
    }

    /// Sends one chunk alone and waits for its answer.
    private func upload(_ chunk: ImageUploadChunk, timeout: Duration) async throws -> ImageUploadResponse {
        let sequence = try await channel.send(.imageUpload(chunk))
        while true {
            let response = try await channel.nextResponse(
                timeout: timeout, waitingFor: "the answer to the first chunk")
            if response.header.sequence == sequence { return try uploadAnswer(response) }
        }
    }

    /// Whether the image list in `response` shows the image in a slot: its last chunk is written.
    private func slotHoldsImage(_ response: SMPResponse) throws -> Bool {
        do throws(SMPResponseError) {
            return try ImageStateResponse(response).images.contains { $0.hash == image.hash }
        } catch {
            throw session.smpFailure(error, answering: SMPRequest.imageState.name)
        }
    }

    private func uploadAnswer(_ response: SMPResponse) throws -> ImageUploadResponse {
        do throws(SMPResponseError) {
            return try ImageUploadResponse(response)
        } catch {
            throw session.smpFailure(error, answering: "an upload chunk")
        }
    }

    private func record(_ range: Range<Int>) {
        session.tally.firmwareWrites.withLock { $0.record(range) }
    }
}
