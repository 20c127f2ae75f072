import DFUSupport
import MCUmgr

/// What one `dfu-bench smp` run measured: both clients' uploads of the same image, the bound,
/// and the resumed update.
struct SMPReportFigures {
    var imageBytes: Int
    var bufSize: Int
    var bufCount: Int
    var reassembly: Bool
    /// The largest frame the clients could send (with reassembly the buffer, else one write).
    var frameLimit: Int
    var bound: SMPUploadBound
    /// Our engine's upload, as dfu-sim's trace timed it.
    var ours: SMPUploadTrace
    var engine: SMPEngineRun
    var smpmgr: SMPUploadTrace
    /// smpmgr's whole command: start-up, connection, upload, state write, reset.
    var smpmgrWallTime: Duration
    var resumed: SMPEngineRun
    /// The image bytes a full window of chunks carries.
    var windowBytes: Int
}

extension LinkReport {
    /// `dfu-bench smp`'s figures and ratios.
    func smp(_ figures: SMPReportFigures) {
        let bytes = Double(figures.imageBytes)
        let bound = bytes / figures.bound.duration.seconds
        let ours = bytes / figures.ours.span.seconds
        let smpmgr = bytes / figures.smpmgr.span.seconds
        if json {
            emit([
                ("benchmark", "\"smp\""), ("image_bytes", "\(figures.imageBytes)"),
                ("buf_size", "\(figures.bufSize)"), ("buf_count", "\(figures.bufCount)"),
                ("reassembly", "\(figures.reassembly)"), ("frame_limit", "\(figures.frameLimit)"),
                ("frames", "\(figures.bound.frameBytes.count)"),
                ("bound_seconds", figure(figures.bound.duration.seconds)),
                ("bound_erase_seconds", figure(figures.bound.erase.seconds)),
                ("bound_bytes_per_second", figure(bound)),
                ("ours_seconds", figure(figures.ours.span.seconds)),
                ("ours_frames", "\(figures.ours.frames)"),
                ("ours_transfer_seconds", figure(figures.engine.transfer.seconds)),
                ("ours_bytes_resent", "\(figures.engine.bytesResent)"),
                ("ours_cpu_seconds", figure(figures.engine.cpuSeconds)),
                ("ours_bytes_per_second", figure(ours)),
                ("smpmgr_seconds", figure(figures.smpmgr.span.seconds)),
                ("smpmgr_frames", "\(figures.smpmgr.frames)"),
                ("smpmgr_wall_seconds", figure(figures.smpmgrWallTime.seconds)),
                ("smpmgr_bytes_per_second", figure(smpmgr)),
                ("ours_over_smpmgr", figure(ours / smpmgr)), ("ours_over_bound", figure(ours / bound)),
                ("bound_over_smpmgr", figure(bound / smpmgr)),
                ("resumed_retries", "\(figures.resumed.retries)"),
                ("resumed_bytes_resent", "\(figures.resumed.bytesResent)"),
                ("window_bytes", "\(figures.windowBytes)"),
            ])
        } else {
            let device = "\(figures.bufSize) × \(figures.bufCount)\(figures.reassembly ? " reassembled" : "")"
            print(
                "SMP bound, \(figures.imageBytes) bytes, buffers \(device), \(figures.bound.frameBytes.count) "
                    + "frames of at most \(figures.frameLimit) bytes: \(figure(figures.bound.duration.seconds)) s "
                    + "(erase \(figure(figures.bound.erase.seconds)) s), \(kB(bound))")
            print(
                "ours: \(kB(ours)) in \(figure(figures.ours.span.seconds)) s at dfu-sim, \(figures.ours.frames) "
                    + "frames (engine's transfer \(figure(figures.engine.transfer.seconds)) s, "
                    + "\(figures.engine.bytesResent) bytes resent, CPU \(figure(figures.engine.cpuSeconds)) s); "
                    + "smpmgr: \(kB(smpmgr)) in \(figure(figures.smpmgr.span.seconds)) s, "
                    + "\(figures.smpmgr.frames) frames (command \(figure(figures.smpmgrWallTime.seconds)) s)")
            print(
                "ours ÷ smpmgr \(figure(ours / smpmgr)), ours ÷ bound \(figure(ours / bound)), "
                    + "bound ÷ smpmgr \(figure(bound / smpmgr))")
            print(
                "resumed after a dropped link (\(figures.resumed.retries) retries): "
                    + "\(figures.resumed.bytesResent) bytes sent again, a window holds \(figures.windowBytes)"
            )
        }
    }
}
