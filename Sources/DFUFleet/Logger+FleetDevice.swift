import Logging

extension Logger {
    /// Where the fleet's own lines about `device` go, beside the engine's.
    static func fleetDevice(_ device: String) -> Logger {
        var logger = Logger(label: "dfu")
        logger[metadataKey: "device"] = "\(device)"
        return logger
    }
}
