extension FleetSimulationSpec {
    /// Reads a `simulate` object; the simulator checks the values again as `--sim-*` options.
    init(_ object: InventoryObject) throws(FleetInventoryError) {
        guard let kind = try object.string("kind") else {
            throw FleetInventoryError("\(object.place): kind missing")
        }
        self.init(
            kind: kind, dfuVersion: try object.string("dfu_version"),
            firmwareVersion: try object.string("firmware_version"), hwVersion: try object.text("hw_version"),
            sdId: try object.text("sd_id"), publicKey: try object.string("public_key"),
            mtu: try object.integer("mtu", in: 23...517), faults: try object.strings("faults") ?? [])
        appVersion = try object.text("app_version")
        pageEraseMs = try object.integer("page_erase_ms", in: 0...10_000)
        wordWriteUs = try object.integer("word_write_us", in: 0...1000)
        slotKib = try object.integer("slot_kib", in: 4...16384)
        smpBufSize = try object.integer("smp_buf_size", in: 64...65535)
        smpBufCount = try object.integer("smp_buf_count", in: 2...64)
        smpReassembly = try object.bool("smp_reassembly") ?? false
        smpImageCheck = try object.bool("smp_image_check") ?? false
        smpEraseStorage = try object.bool("smp_erase_storage") ?? false
        imageHash = try object.string("image_hash")
        mcubootMode = try object.string("mcuboot_mode")
        mcubootNoDowngrade = try object.bool("mcuboot_no_downgrade") ?? false
        networkCore = try object.bool("network_core") ?? false
        networkCoreOnePair = try object.bool("network_core_one_pair") ?? false
        realTimeFactor = try object.double("real_time_factor", in: 0...10)
    }
}
