import MCUmgr

extension DFUError {
    /// The case of an error an SMP device answered with: MCUmgr return codes + 1000, image
    /// management codes + 1100; `unsupportedResponse` for a code or group this side does not know.
    public init(smpError: SMPDeviceError) {
        let code: Int? =
            switch smpError {
            case .mcumgr(let rc, _) where (1..<100).contains(rc): 1000 + rc
            case .group(.image, let rc) where (1..<100).contains(rc): 1100 + rc
            default: nil
            }
        self = code.flatMap(DFUError.init(rawValue:)) ?? .unsupportedResponse
    }
}

extension UpdateSession {
    /// The failure of an SMP request whose answer is an error or not the expected one.
    func smpFailure(_ error: SMPResponseError, answering request: String) -> DFUFailure {
        switch error {
        case .device(let deviceError):
            failure(DFUError(smpError: deviceError), "the device answered \(request) with \(deviceError)")
        case .malformed(let what):
            failure(.unsupportedResponse, "the answer to \(request) is malformed: \(what)")
        }
    }
}

extension SMPRequest {
    /// What the request asks, for messages.
    var name: String {
        switch self {
        case .echo: "echo"
        case .reset: "reset"
        case .resetIntoBootMode(let mode): "reset into boot mode \(mode)"
        case .mcumgrParameters: "MCUmgr parameters"
        case .bootloaderInfo(let query): query.map { "bootloader info (\($0))" } ?? "bootloader info"
        case .imageState: "image state"
        case .imageTest: "image test"
        case .imageConfirm: "image confirm"
        case .imageUpload(let chunk): "image upload at offset \(chunk.offset)"
        case .imageErase: "image erase"
        case .eraseStorage: "erase storage"
        }
    }
}
