import ArgumentParser
import CommandLineContract
import DFUSimulator
import Foundation
import GATT
import MCUmgr
import NordicDFU

/// `--simulate KIND` and the `--sim-*` options of the CLI contract ("Simulated devices"), shared
/// by `dfu-update flash --simulate` and `dfu-sim`.
public struct SimulationOptions: OptionChecks {
    @Option(help: "Simulate a device of this kind (docs/cli-contract.md, \"Simulated devices\").")
    public var simulate: SimulatedDeviceKind?

    @Option(help: "The simulated Legacy bootloader's DFU version, 0.5 … 0.8 (0.8).")
    public var simDfuVersion: LegacyDFUVersion?

    @Option(help: "The Firmware Revision String the simulated application reports (1.0.0).")
    public var simFirmwareVersion: String?

    @Option(
        parsing: .unconditional,
        help:
            "The application version the simulated Secure bootloader's settings hold (s_dfu_settings.app_version), which an application's fw_version must reach, decimal or 0x hex (0)."
    )
    public var simAppVersion: NumberArgument<UInt32>?

    @Option(
        parsing: .unconditional,
        help: "The hw_version the simulated Secure bootloader accepts, decimal or 0x hex (52).")
    public var simHwVersion: NumberArgument<UInt32>?

    @Option(
        parsing: .unconditional,
        help:
            "FWID of the SoftDevice the simulated device holds, decimal or 0x hex (0xB6; Legacy kinds 0x88).")
    public var simSdId: NumberArgument<UInt16>?

    @Option(
        help: ArgumentHelp(
            "The simulated Secure bootloader requires init packets signed by this public key (PEM or nrfutil hex).",
            valueName: "file"))
    public var simPublicKey: String?

    @Option(
        parsing: .unconditional,
        help: "ATT MTU the simulated device offers, 23 … 517 (247).", transform: NumberArgument<Int>.parse)
    public var simMtu: Int?

    @Option(
        parsing: .unconditional,
        help: "The largest image, in KiB, the simulated device's free bank takes (900).",
        transform: NumberArgument<Int>.parse)
    public var simBankKib: Int?

    @Option(
        help: ArgumentHelp(
            "A fault the simulated device injects (repeatable).", valueName: SimulatedFault.forms))
    public var simFault: [SimulatedFault] = []

    @Option(
        parsing: .unconditional, help: "Time, in ms, to erase one 4 KiB flash page, 0 … 10000 (85, nRF52).")
    public var simPageEraseMs: Int?

    @Option(
        parsing: .unconditional, help: "Time, in µs, to write one 32-bit flash word, 0 … 1000 (41, nRF52).")
    public var simWordWriteUs: Int?

    @Option(
        parsing: .unconditional,
        help:
            "In-process devices: real time each GATT operation also takes, per unit of the virtual time it costs, 0 … 10 (0: none)."
    )
    public var simRealTimeFactor: Double?

    @Option(
        parsing: .unconditional,
        help: "smp-app: bytes in each MCUboot slot, in KiB, 4 … 16384 (472, the nRF52840 DK's partitions).",
        transform: NumberArgument<Int>.parse)
    public var simSlotKib: Int?

    @Option(
        parsing: .unconditional,
        help:
            "smp-app: the largest SMP frame the device takes (CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE), 64 … 65535 (384; NCS fast DFU 2475).",
        transform: NumberArgument<Int>.parse)
    public var simSmpBufSize: Int?

    @Option(
        parsing: .unconditional,
        help:
            "smp-app: SMP buffers for queued requests and the answer being built (CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT), 2 … 64 (4)."
    )
    public var simSmpBufCount: Int?

    @Flag(
        help:
            "smp-app: a frame may span several writes (CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY); without it each write must hold whole frames."
    )
    public var simSmpReassembly = false

    @Flag(
        help:
            "smp-app: the last upload answer says whether the file's SHA-256 matched (CONFIG_IMG_ENABLE_IMAGE_CHECK)."
    )
    public var simSmpImageCheck = false

    @Flag(
        help:
            "smp-app: the device offers Zephyr's basic group, erase storage (CONFIG_MCUMGR_GRP_ZBASIC); without it the command is not supported."
    )
    public var simSmpEraseStorage = false

    @Option(
        help: ArgumentHelp(
            "smp-app: the image hash MCUboot checks and the device lists (sha512 on nRF54L, CONFIG_MCUBOOT_BOOTLOADER_USES_SHA512; default sha256).",
            valueName: "sha256|sha384|sha512"))
    public var simImageHash: MCUbootHashAlgorithm?

    @Option(
        help: ArgumentHelp(
            "smp-app: the device answers bootloader information (CONFIG_MCUMGR_GRP_OS_BOOTLOADER_INFO) with this MCUboot mode, and its MCUboot installs as the mode does (overwrite-only copies an image in for good); MODE is swap-using-scratch, swap-using-move, swap-using-offset, overwrite-only, direct-xip, direct-xip-with-revert, ram-load, firmware-loader or unknown (answers -1). Default: the command is not built in, MCUboot swaps.",
            valueName: "MODE"))
    public var simMcubootMode: MCUbootMode?

    @Flag(
        help:
            "smp-app: MCUboot refuses an image older than the one it runs and says so in bootloader information (CONFIG_MCUBOOT_DOWNGRADE_PREVENTION, no-downgrade)."
    )
    public var simMcubootNoDowngrade = false

    @Flag(
        help:
            "smp-app: an nRF5340 updated on both cores at once: image 1 is the network core, copied there by MCUboot at the reset (needs --sim-mcuboot-mode overwrite-only)."
    )
    public var simNetworkCore = false

    @Flag(
        help:
            "smp-app: an nRF5340 with one image pair (nRF Connect SDK's default): the network core's image goes into image 0's secondary slot and MCUboot copies it to that core at the reset, erasing the slot (NCS 3.4.1 and later)."
    )
    public var simNetworkCoreOnePair = false

    @Option(
        parsing: .unconditional,
        help:
            "smp-app with --sim-mcuboot-mode firmware-loader: the loader writes through an image buffer of this many KiB (CONFIG_BM_MCUMGR_GRP_IMG_BUFFER_SZ; 56, 128 on nRF54L15) and answers a chunk that does not fit with the same offset. Default: each chunk is written before its answer.",
        transform: NumberArgument<Int>.parse)
    public var simLoaderBufferKib: Int?

    public init() {}

    /// Whether any `--sim-*` option was given.
    public var usesSimulatorOptions: Bool {
        simDfuVersion != nil || simFirmwareVersion != nil || simAppVersion != nil || simHwVersion != nil
            || simSdId != nil
            || simPublicKey != nil || simMtu != nil || simBankKib != nil || !simFault.isEmpty
            || simPageEraseMs != nil || simWordWriteUs != nil || simRealTimeFactor != nil || usesSMPOptions
    }

    /// Whether any option only an `smp-app` device takes was given.
    private var usesSMPOptions: Bool {
        simSlotKib != nil || simSmpBufSize != nil || simSmpBufCount != nil || simSmpReassembly
            || simSmpImageCheck || simSmpEraseStorage || simImageHash != nil || simMcubootMode != nil
            || simMcubootNoDowngrade || simNetworkCore || simNetworkCoreOnePair
            || simLoaderBufferKib != nil
    }

    /// Refuses --sim-* options without --simulate, and SMP options or faults the kind ignores.
    public func checkOptions() throws {
        if simulate == nil, usesSimulatorOptions {
            throw ValidationError("the --sim-* options need --simulate KIND")
        }
        if let simulate, simulate != .smpApp, usesSMPOptions {
            throw ValidationError("--sim-slot-kib and the --sim-smp-* options need --simulate smp-app")
        }
        if let simulate, let fault = simFault.first(where: { !$0.kinds.contains(simulate) }) {
            let kinds = fault.kinds.map(\.rawValue).joined(separator: ", ")
            throw ValidationError(
                "--sim-fault \(fault) does nothing with --simulate \(simulate.rawValue); it applies to \(kinds)"
            )
        }
    }

    /// The device these options describe, advertising at `address` (with `name`, when given).
    /// Throws `SimulationOptionsError`: the key file is missing or unusable, or a value is out of
    /// range.
    public func configuration(address: BluetoothAddress, name: String? = nil) throws(SimulationOptionsError)
        -> SimulatedDeviceConfiguration
    {
        guard let simulate else { throw SimulationOptionsError("--simulate KIND is required") }
        var configuration = SimulatedDeviceConfiguration(kind: simulate, address: address)
        if let name { configuration.name = name }
        if let simDfuVersion { configuration.legacyDFUVersion = simDfuVersion }
        configuration.firmwareVersion = simFirmwareVersion
        if let simAppVersion { configuration.settingsApplicationVersion = simAppVersion.value }
        if let simHwVersion { configuration.hardwareVersion = simHwVersion.value }
        if let simSdId { configuration.softDeviceID = simSdId.value }
        if let simPublicKey {
            guard FileManager.default.isReadableFile(atPath: simPublicKey) else {
                throw SimulationOptionsError(
                    "--sim-public-key \(simPublicKey): no such readable file; check the path",
                    isMissingFile: true)
            }
            do {
                configuration.publicKey = try DFUPublicKey(contentsOf: URL(fileURLWithPath: simPublicKey))
            } catch {
                throw SimulationOptionsError("--sim-public-key \(simPublicKey): \(error.description)")
            }
        }
        if let simMtu { configuration.mtu = simMtu }
        if let simBankKib {
            guard simBankKib > 0 else {
                throw SimulationOptionsError("--sim-bank-kib \(simBankKib) must be at least 1")
            }
            configuration.bankCapacity = simBankKib * 1024
        }
        configuration.faults = simFault
        try applyFlashAndSMPOptions(to: &configuration)
        do {
            try configuration.validate()
        } catch {
            throw SimulationOptionsError(error.description)
        }
        return configuration
    }
}

/// Simulation options that cannot be used; the message names the option and what it accepts.
public struct SimulationOptionsError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The `--sim-public-key` file does not exist or cannot be read (the contract's
    /// `file_not_found`); otherwise the error is a usage error.
    public var isMissingFile: Bool

    public init(_ description: String, isMissingFile: Bool = false) {
        self.description = description
        self.isMissingFile = isMissingFile
    }
}
