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

    /// Chunks in flight at most: one buffer of the device's stays free for its answer.
    static func windowCapacity(_ parameters: MCUmgrParameters) -> Int {
        max(1, Int(parameters.bufferCount) - 1)
    }

    private func stream(_ window: inout SMPUploadWindow, frameLimit: Int, match: Bool?) async throws -> Bool?
    {
        var match = match
        var lostInARow = 0
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
            do {
                response = try await channel.nextResponse(
                    timeout: session.options.responseTimeout, waitingFor: "the answer to an upload chunk")
            } catch let failure as DFUFailure where failure.error == .receivingNotificationFailed {
                lostInARow += 1
                guard lostInARow < Self.lostAnswerLimit else { throw failure }
                session.log(
                    .info, "no answer to the chunks in flight; sending again from \(window.confirmed)")
                window.answersLost()
                continue
            }
            lostInARow = 0
            let answer = try uploadAnswer(response)
            switch window.answered(sequence: response.header.sequence, expectedOffset: Int(answer.offset)) {
            case .accepted: match = answer.match ?? match
            case .rewound(let offset):
                session.log(.verbose, "the device expects offset \(offset): going back")
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
