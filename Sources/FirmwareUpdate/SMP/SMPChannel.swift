import GATT
import MCUmgr

/// The SMP characteristic of one connection: writes request frames (write commands, split into
/// writes of the link's size when the device reassembles them) and joins the notifications into
/// response frames, matched to their requests by sequence number. Several requests may be in
/// flight. Every wait is bounded in real time; transport errors map to one `DFUError`. Used by
/// the update's own task only.
final class SMPChannel {
    let characteristic: any GATTCharacteristic
    let session: UpdateSession
    private let inbox: NotificationInbox
    private var reassembler = SMPReassembler()
    /// Frames read from notifications and not yet taken.
    private var frames: [SMPFrame] = []
    private var nextSequence: UInt8 = 0
    /// The SMP version requests are sent in: 2 until the device asks for 1.
    private(set) var version = SMPVersion.v2
    /// The largest value one write carries.
    private(set) var writeLength: Int
    /// Whether the device joins a frame split over several writes
    /// (`CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`): learnt from its parameters.
    var deviceReassembles = false
    /// How long a request waits after the last answer, on the link's time (zero: not at all). A
    /// device with two SMP buffers frees an answered request's buffer and its answer's only when
    /// the link layer learns that the answer arrived, from the central's next packet: a request
    /// riding in that packet finds no buffer and is lost (docs/mcumgr.md, "Two buffers").
    var pauseAfterAnswer = Duration.zero
    /// When the last answer was taken, on the link's time.
    private var lastAnswer: Duration?

    private init(
        characteristic: any GATTCharacteristic, inbox: NotificationInbox, writeLength: Int,
        session: UpdateSession
    ) {
        self.characteristic = characteristic
        self.inbox = inbox
        self.writeLength = writeLength
        self.session = session
    }

    /// Subscribes to the SMP characteristic of `connection`.
    static func open(_ characteristic: any GATTCharacteristic, device: String, session: UpdateSession)
        async throws -> SMPChannel
    {
        let writeLength = min(
            await characteristic.maximumWriteWithoutResponseLength, session.options.maximumPacketSize)
        return SMPChannel(
            characteristic: characteristic,
            inbox: try await session.subscribe(to: characteristic, device: device),
            writeLength: writeLength, session: session)
    }

    /// Stops listening.
    func close() { inbox.close() }

    /// The largest frame one request may be, for a device with `bufferSize`.
    func frameLimit(bufferSize: Int) -> Int {
        ImageUploadChunk.frameLimit(
            attMTU: writeLength + 3, bufferSize: bufferSize, deviceReassembles: deviceReassembles)
    }

    /// Writes `request` and returns its sequence number. Counts the data of an upload chunk as
    /// firmware written.
    @discardableResult
    func send(_ request: SMPRequest) async throws -> UInt8 {
        let sequence = nextSequence
        nextSequence &+= 1
        let bytes = request.frame(sequence: sequence, version: version).encoded
        if let lastAnswer, pauseAfterAnswer > .zero {
            let wait = lastAnswer + pauseAfterAnswer - session.linkTime.now()
            if wait > .zero { try await session.linkTime.sleep(for: wait) }
        }
        do {
            var written = 0
            try await characteristic.writeWithoutResponse(
                bytes[...], inPacketsOf: deviceReassembles ? writeLength : bytes.count, written: &written)
        } catch {
            throw session.mapped(error, during: .writingCharacteristicFailed)
        }
        return sequence
    }

    /// The next response the device sends, whichever request it answers, waiting at most
    /// `timeout`.
    func nextResponse(timeout: Duration, waitingFor what: @autoclosure () -> String) async throws
        -> SMPResponse
    {
        let deadline = ContinuousClock.now + timeout
        while frames.isEmpty {
            let remaining = deadline - .now
            let value: [UInt8]
            do {
                value = try await inbox.next(timeout: max(.zero, remaining), waitingFor: what())
            } catch {
                reassembler.reset()
                throw session.mapped(error, during: .receivingNotificationFailed)
            }
            do throws(SMPFrameError) {
                frames += try reassembler.append(value)
            } catch {
                session.log(.warning, "dropped an SMP notification out of step: \(error)")
            }
        }
        let frame = frames.removeFirst()
        lastAnswer = session.linkTime.now()
        do throws(SMPResponseError) {
            return try SMPResponse(frame: frame)
        } catch {
            throw session.failure(.unsupportedResponse, "\(error)")
        }
    }

    /// Sends `request` and waits for its answer, leaving answers to earlier requests aside;
    /// checks that it answers this request and carries no error. A device that refuses the SMP
    /// version is asked again in the version it names.
    func request(_ request: SMPRequest, timeout: Duration) async throws -> SMPResponse {
        for _ in 0..<2 {
            let sequence = try await send(request)
            var response: SMPResponse
            repeat {
                response = try await nextResponse(
                    timeout: timeout, waitingFor: "the answer to \(request.name)")
            } while response.header.sequence != sequence
            let failure = response.failure(answering: request)
            if case .device(let error)? = failure, let retry = error.versionToRetry, retry != version {
                version = retry
                continue
            }
            if let failure {
                throw session.smpFailure(failure, answering: request.name)
            }
            return response
        }
        throw session.failure(.unsupportedResponse, "the device refuses both SMP versions")
    }
}

extension SMPResponse {
    /// What is wrong with this as the answer to `request`; nil when it is a success.
    func failure(answering request: SMPRequest) -> SMPResponseError? {
        do throws(SMPResponseError) {
            try check(answers: request)
            return nil
        } catch {
            return error
        }
    }
}
