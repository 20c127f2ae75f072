/// What a Nordic DFU update keeps between its steps beside the shared session: where the device
/// comes back after a reset, and what Secure DFU learned of its pace. One per update, made by
/// `UpdateRun` and handed to the steps that read or write it (the buttonless jump, the Secure
/// transfer). Used only by the task that runs the update.
final class NordicRunState {
    /// Where the device can be found again.
    var whereabouts = DeviceWhereabouts()
    /// What Secure DFU learned of the device's pace, kept across parts and reconnections.
    var pacing = SecurePacing()
}
