import NordicDFU

extension DFUOptions {
    /// The options only a Nordic DFU update (Secure or Legacy) reads: pacing, entering and finding
    /// the bootloader, resume, and the services of devices built with custom UUIDs.
    public struct Nordic: Sendable {
        /// Packet receipt notifications every N packets; 0 turns them off. `nil` chooses per
        /// protocol: for Secure DFU the packets of one data object, so that the receipt for each
        /// object's last packet carries the offset and CRC that Calculate Checksum would otherwise
        /// ask for (one round trip fewer per object; a shorter last object is still checksummed);
        /// 10 for Legacy DFU (the SDK 11 bootloader is overrun without them and can only report it
        /// at the very end).
        public var packetReceiptNotifications: UInt16?
        /// Wait after creating the first data object of a connection (on link time), while the
        /// bootloader erases flash.
        public var firstDataObjectDelay: Duration = .zero
        /// Wait after creating every data object (on link time), while the bootloader erases the
        /// object's flash page. None by default: a bootloader whose packet buffers hold what
        /// arrives during the erase needs none, and when an object arrives incomplete right after
        /// Create the engine resends the missing bytes and from then on waits after each Create
        /// what the loss showed (`LearnedFlashWait`, at most 2 s; see docs/engine.md). The longer
        /// of this and the learned wait applies, from Create's answer; with neither, an object's
        /// packets follow its Create as soon as the device has it (docs/engine.md, "Streaming
        /// behind Create").
        public var dataObjectPreparationDelay: Duration = .zero
        /// The name the Secure bootloader advertises after a buttonless jump without bonds.
        public var alternativeAdvertisingName: AlternativeAdvertisingName = .random
        /// Where to look for the bootloader after a jump or a reboot between parts.
        public var bootloaderLocation: BootloaderLocation = .automatic
        /// Accept SDK 12's experimental buttonless service (it has no authentication).
        public var enableExperimentalButtonless = false
        /// Secure DFU: always start from zero instead of resuming what the device holds.
        public var disableResume = false
        /// Legacy DFU without a DFU Version characteristic: treat the device as a bootloader.
        public var forceBootloaderMode = false
        /// Services and characteristics, for devices built with custom UUIDs.
        public var uuids = DFUUUIDs()

        /// Nordic's defaults (docs/engine.md, "Defaults and why").
        public init() {}

        /// What the bootloader is told to advertise as, before a buttonless jump without bonds.
        public enum AlternativeAdvertisingName: Sendable, Equatable {
            /// Do not set a name; the bootloader advertises its default (`DfuTarg`).
            case disabled
            /// `Dfu` followed by five random digits, so that the bootloader is found among others.
            case random
            /// This name, cut to 20 bytes of UTF-8.
            case name(String)
        }

        /// Where the bootloader advertises after it starts.
        public enum BootloaderLocation: Sendable, Equatable {
            /// The device's address, its address + 1 (protocol doc §0.4) or the advertising name
            /// set before the jump, whichever appears.
            case automatic
            /// The device's own address (bonded or legacy bootloaders).
            case sameAddress
            /// Address + 1 (bootloaders without bond information).
            case incrementedAddress
            /// A device advertising this name.
            case name(String)
        }
    }
}
