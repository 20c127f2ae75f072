import ArgumentParser
import CommandLineContract
import FirmwareUpdate
import GATT
import NordicDFU
import SimulatorCommandLine

/// How one device is updated: the options `flash` and `fleet` share, with one spelling and one
/// meaning in both. Every number states its range in its help and in its error.
struct UpdateOptions: OptionChecks {
    @Flag(help: "Update even when the device already runs the package's version.")
    var force = false

    @Option(
        help: "UUID of the characteristic holding the device's version (default: 2A26, Firmware Revision).")
    var versionCharacteristic: BluetoothUUID?

    @Option(
        name: .customLong("prn"), parsing: .unconditional,
        help: ArgumentHelp(
            "Packet receipt notification interval, 0…65535; 0 turns them off.",
            discussion: "Default: Secure DFU one data object's packets, Legacy DFU 10."),
        transform: { try Ranged.integer($0, in: 0...65535) })
    var prn: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Largest packet written to the device, in bytes, 20…512 (default: 512).",
            discussion: """
                The link limits it too: a packet is at most the ATT MTU − 3 bytes, and BlueZ sets \
                the MTU when it connects (bluetoothd's [GATT] ExchangeMTU, 517 by default, and what \
                the device accepts); this tool cannot choose it.
                """),
        transform: { try Ranged.integer($0, in: 20...512) })
    var packetSize = 512

    @Option(
        parsing: .unconditional,
        help: "Seconds each connection attempt may take, 0.01…3600 (default: 10).",
        transform: Seconds.parse)
    var connectTimeout = Seconds(10)

    @Option(
        parsing: .unconditional,
        help:
            "Seconds to wait for an answer that needs flash work (Create, Execute, Validate), 0.01…3600 (default: 20).",
        transform: Seconds.parse)
    var responseTimeout = Seconds(20)

    @Option(
        parsing: .unconditional,
        help:
            "Seconds to look for the device after it restarts (into its bootloader, between parts), 0.01…3600 (default: 10).",
        transform: Seconds.parse)
    var bootloaderWait = Seconds(10)

    @Option(
        parsing: .unconditional,
        help:
            "Reconnections after a lost link within one update, 0…100 (default: 3); Secure DFU resumes, Legacy DFU restarts the image.",
        transform: { try Ranged.integer($0, in: 0...100) })
    var retries = 3

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Milliseconds to wait after creating each data object, 0…5000 (Secure DFU).",
            discussion: "Default: none until the device loses packets, then what the loss showed."),
        transform: { try Ranged.integer($0, in: 0...5000) })
    var prepareDelay: Int?

    @Flag(help: "Secure DFU: send everything again instead of resuming what the device holds.")
    var noResume = false

    @Option(help: "The name the bootloader advertises after a buttonless jump (default: random DfuNNNNN).")
    var bootloaderName: String?

    @Flag(help: "Do not rename the bootloader before a buttonless jump.")
    var noBootloaderName = false

    @Option(
        help: "Where the bootloader advertises: auto, same (bonded, legacy) or incremented (address + 1).")
    var bootloaderAddress: DFUOptions.Nordic.BootloaderLocation = .automatic

    @Flag(help: "Accept SDK 12's experimental buttonless service.")
    var experimentalButtonless = false

    @Flag(help: "Legacy DFU without a DFU Version characteristic: treat the device as a bootloader.")
    var forceBootloader = false

    @Option(
        help: ArgumentHelp(
            "SMP: how the new images are activated: test-and-confirm, test-only, confirm-only or no-reset.",
            discussion: """
                test-and-confirm marks them for test, resets the device, checks that it runs them and \
                confirms them (a new image that does not boot is reverted by MCUboot and reported); \
                test-only leaves them on test (reverted at the next reset unless confirmed); \
                confirm-only makes them permanent before the reset; no-reset marks them for test \
                and leaves the device as it is.
                """))
    var activation: DFUOptions.SMP.Activation = .testAndConfirm

    @Flag(
        help: ArgumentHelp(
            "SMP: erase the application's settings after the upload, before the reset (default: off).",
            discussion: """
                For a new image whose settings layout changed: the device erases its storage \
                partition (Zephyr's basic group, CONFIG_MCUMGR_GRP_ZBASIC), and the bonds kept \
                there go with it, so a device that needs pairing must be paired again. Needs a \
                reset: not with --activation no-reset. A device without the command is not updated.
                """))
    var eraseSettings = false

    @Option(
        parsing: .unconditional,
        help:
            "SMP: seconds to look for the device after its reset (MCUboot swaps the images first), 0.01…3600 (default: 60).",
        transform: Seconds.parse)
    var swapWait = Seconds(60)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "SMP: the size of the device's image slot in bytes (decimal or 0x hex); a larger image is refused before connecting.",
            discussion:
                "Without it the device refuses an image too large for its slot when the upload starts."),
        transform: { try Ranged.integer($0, in: 1...(1 << 30)) })
    var slotSize: Int?

    func checkOptions() throws {
        if noBootloaderName, bootloaderName != nil {
            throw ValidationError("--bootloader-name and --no-bootloader-name exclude each other")
        }
        if let bootloaderName, bootloaderName.isEmpty || bootloaderName.utf8.count > 20 {
            throw ValidationError("--bootloader-name must be 1 to 20 bytes long")
        }
        if eraseSettings, activation == .noReset {
            throw ValidationError(
                "--erase-settings needs a reset after it: not with --activation no-reset (the running application would write its settings again)"
            )
        }
    }

    /// The engine's options these flags ask for: the shared ones, and each family's in its group.
    var dfuOptions: DFUOptions {
        var options = DFUOptions()
        options.force = force
        if let versionCharacteristic { options.versionCharacteristic = versionCharacteristic }
        options.maximumPacketSize = packetSize
        options.connectTimeout = connectTimeout.duration
        options.responseTimeout = responseTimeout.duration
        options.bootloaderScanTimeout = bootloaderWait.duration
        options.retries = retries
        options.nordic = nordicOptions
        options.smp = smpOptions
        return options
    }

    /// What the Nordic DFU flags ask for (`--prn`, `--prepare-delay`, `--no-resume`, the
    /// bootloader's name and address, `--experimental-buttonless`, `--force-bootloader`).
    private var nordicOptions: DFUOptions.Nordic {
        var nordic = DFUOptions.Nordic()
        nordic.packetReceiptNotifications = prn.map(UInt16.init)
        if let prepareDelay { nordic.dataObjectPreparationDelay = .milliseconds(prepareDelay) }
        nordic.disableResume = noResume
        if noBootloaderName {
            nordic.alternativeAdvertisingName = .disabled
        } else if let bootloaderName {
            nordic.alternativeAdvertisingName = .name(bootloaderName)
        }
        nordic.bootloaderLocation = bootloaderAddress
        nordic.enableExperimentalButtonless = experimentalButtonless
        nordic.forceBootloaderMode = forceBootloader
        return nordic
    }

    /// What the SMP flags ask for (`--activation`, `--erase-settings`, `--swap-wait`).
    private var smpOptions: DFUOptions.SMP {
        var smp = DFUOptions.SMP()
        smp.activation = activation
        smp.resetTimeout = swapWait.duration
        smp.eraseSettings = eraseSettings
        return smp
    }
}

/// Whole numbers in a range, decimal or `0x` hexadecimal (imgtool and Zephyr's partitions write
/// sizes in hex), read so that the error states the range (`--prn -1` is a value out of range,
/// not a missing one).
enum Ranged {
    static func integer(_ text: String, in range: ClosedRange<Int>) throws -> Int {
        let lower = text.lowercased()
        let parsed = lower.hasPrefix("0x") ? Int(lower.dropFirst(2), radix: 16) : Int(text)
        guard let value = parsed, range.contains(value) else {
            throw ValidationError(
                "'\(text)' is not a whole number (decimal or 0x hex) from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return value
    }
}
