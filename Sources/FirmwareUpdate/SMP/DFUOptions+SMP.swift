extension DFUOptions {
    /// The options only an SMP update (MCUboot over MCUmgr) reads: how the new images are
    /// activated, how long MCUboot may take to swap them, and whether the settings are erased.
    public struct SMP: Sendable {
        /// How the uploaded images are activated.
        public var activation: Activation = .testAndConfirm
        /// Bound on finding the device again after its reset (real time); MCUboot swaps the
        /// slots before the new image starts, seconds per hundred kilobytes on an nRF52.
        public var resetTimeout: Duration = .seconds(60)
        /// Erase the application's settings (Zephyr's basic group, erase storage) after the
        /// upload and before the reset, for a new image whose settings layout changed; the bonds
        /// kept there go too. Needs a reset (not with `noReset`).
        public var eraseSettings = false

        /// Test and confirm, a minute for the swap, the settings kept.
        public init() {}

        /// How an SMP update activates the images it uploaded (MCUboot's test and confirm).
        public enum Activation: String, Sendable, CaseIterable {
            /// Mark for test, reset, check that the device runs the new images, confirm them: a
            /// new image that does not boot is reverted by MCUboot and reported as `imageReverted`.
            case testAndConfirm = "test-and-confirm"
            /// Mark for test, reset, check: the images run on test, and MCUboot reverts them at the
            /// next reset unless they are confirmed (by themselves, or later).
            case testOnly = "test-only"
            /// Mark confirmed at once (no way back), reset, check.
            case confirmOnly = "confirm-only"
            /// Mark for test only: the device swaps at its next reset.
            case noReset = "no-reset"
        }
    }
}
