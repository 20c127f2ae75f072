import DFUSimulator

extension SimulationOptions {
    /// The flash speeds and the `smp-app` settings, range-checked.
    func applyFlashAndSMPOptions(to configuration: inout SimulatedDeviceConfiguration)
        throws(SimulationOptionsError)
    {
        if let simPageEraseMs {
            guard (0...10_000).contains(simPageEraseMs) else {
                throw SimulationOptionsError("--sim-page-erase-ms \(simPageEraseMs) is outside 0 … 10000")
            }
            configuration.timing.pageErase = .milliseconds(simPageEraseMs)
        }
        if let simRealTimeFactor {
            guard (0...10).contains(simRealTimeFactor) else {
                throw SimulationOptionsError("--sim-real-time-factor \(simRealTimeFactor) is outside 0 … 10")
            }
            configuration.timing.realTimeFactor = simRealTimeFactor
        }
        if let simWordWriteUs {
            guard (0...1000).contains(simWordWriteUs) else {
                throw SimulationOptionsError("--sim-word-write-us \(simWordWriteUs) is outside 0 … 1000")
            }
            configuration.timing.wordWrite = .microseconds(simWordWriteUs)
        }
        if let simSlotKib { configuration.smp.slotSize = simSlotKib * 1024 }
        if let simSmpBufSize { configuration.smp.bufferSize = simSmpBufSize }
        if let simSmpBufCount { configuration.smp.bufferCount = simSmpBufCount }
        configuration.smp.reassembly = simSmpReassembly
        configuration.smp.imageCheck = simSmpImageCheck
        configuration.smp.eraseStorage = simSmpEraseStorage
        if let simImageHash { configuration.smp.imageHash = simImageHash }
        if let simMcubootMode { configuration.smp.bootloaderMode = simMcubootMode }
        configuration.smp.refusesDowngrade = simMcubootNoDowngrade
        configuration.smp.networkCore = simNetworkCore
        if simNetworkCoreOnePair { configuration.smp.networkCoreOnePair = .erasesImage }
        if let simLoaderBufferKib {
            guard (1...1024).contains(simLoaderBufferKib) else {
                throw SimulationOptionsError(
                    "--sim-loader-buffer-kib \(simLoaderBufferKib) is outside 1 … 1024")
            }
            configuration.smp.loaderImageBuffer = simLoaderBufferKib * 1024
        }
    }
}
