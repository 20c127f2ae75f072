extension SimulatedFault {
    /// The kinds of simulated device that inject this fault; on another kind it would do nothing.
    public var kinds: [SimulatedDeviceKind] {
        switch self {
        // checksums are Secure DFU's (Calculate Checksum, packet receipts)
        case .crcError: [.secure, .secureApp, .secureAppBonded]
        // the request that completes an image: Secure DFU's last Execute, Legacy DFU's Validate
        case .dropFinalAnswer: SimulatedDeviceKind.allCases.filter { $0 != .smpApp }
        // MCUboot's test swap
        case .revertAfterTest: [.smpApp]
        case .disconnectAt, .dropNotification, .rejectConnect, .slowFlash: SimulatedDeviceKind.allCases
        }
    }
}
