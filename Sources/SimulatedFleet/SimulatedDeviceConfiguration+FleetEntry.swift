import DFUFleet
import DFUSimulator
import Foundation
import GATT
import SimulatorCommandLine

extension SimulatedDeviceConfiguration {
    /// The simulated device of an inventory entry with a `simulate` object, read as the same
    /// `--simulate`/`--sim-*` options `dfu-update flash` takes. An entry named by address
    /// advertises there; one named by name advertises that name at an address made from `index`
    /// (`C0:DE:00:01:HH:LL`, the low octet even so that address + 1 stays in the block); its
    /// bootloader, when it starts in one, advertises that name too.
    public init(fleetEntry entry: FleetDeviceEntry, index: Int) throws(SimulatorConfigurationError) {
        var parsed: [[String]: SimulationOptions] = [:]
        try self.init(fleetEntry: entry, index: index, parsed: &parsed)
    }

    /// The same, for one of many entries: `parsed` keeps the options read so far by their
    /// arguments, so that entries with the same `simulate` object (a simulated fleet's usual
    /// case) are read once; reading them was most of a simulated device's set-up (issue 39).
    public init(
        fleetEntry entry: FleetDeviceEntry, index: Int, parsed: inout [[String]: SimulationOptions]
    ) throws(SimulatorConfigurationError) {
        guard let spec = entry.simulate else {
            throw SimulatorConfigurationError("device '\(entry.device)' has no simulate object")
        }
        var address = BluetoothAddress(
            0xC0, 0xDE, 0x00, 0x01, UInt8((index >> 7) & 0xFF), UInt8((index << 1) & 0xFF))
        var name: String?
        switch entry.identifier {
        case .address(let given): address = given
        case .name(let given): name = given
        }
        var arguments = ["--simulate", spec.kind]
        let values: [(String, String?)] = [
            ("--sim-dfu-version", spec.dfuVersion), ("--sim-firmware-version", spec.firmwareVersion),
            ("--sim-app-version", spec.appVersion), ("--sim-hw-version", spec.hwVersion),
            ("--sim-sd-id", spec.sdId),
            ("--sim-public-key", spec.publicKey), ("--sim-mtu", spec.mtu.map(String.init)),
            ("--sim-page-erase-ms", spec.pageEraseMs.map(String.init)),
            ("--sim-word-write-us", spec.wordWriteUs.map(String.init)),
            ("--sim-slot-kib", spec.slotKib.map(String.init)),
            ("--sim-smp-buf-size", spec.smpBufSize.map(String.init)),
            ("--sim-smp-buf-count", spec.smpBufCount.map(String.init)),
            ("--sim-real-time-factor", spec.realTimeFactor.map { String($0) }),
            ("--sim-image-hash", spec.imageHash), ("--sim-mcuboot-mode", spec.mcubootMode),
        ]
        for case (let option, let value?) in values { arguments += [option, value] }
        if spec.smpReassembly { arguments.append("--sim-smp-reassembly") }
        if spec.smpImageCheck { arguments.append("--sim-smp-image-check") }
        if spec.smpEraseStorage { arguments.append("--sim-smp-erase-storage") }
        if spec.mcubootNoDowngrade { arguments.append("--sim-mcuboot-no-downgrade") }
        if spec.networkCore { arguments.append("--sim-network-core") }
        if spec.networkCoreOnePair { arguments.append("--sim-network-core-one-pair") }
        for fault in spec.faults { arguments += ["--sim-fault", fault] }
        do {
            let options = try parsed[arguments] ?? SimulationOptions.parse(arguments)
            parsed[arguments] = options
            self = try options.configuration(address: address, name: name)
            if let name, kind.startsInBootloader { bootloaderName = name }
        } catch {
            let reason =
                (error as? SimulationOptionsError)?.description ?? SimulationOptions.messageLine(for: error)
            throw SimulatorConfigurationError("device '\(entry.device)': \(reason)")
        }
    }
}
