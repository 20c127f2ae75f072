import MCUmgr

extension SMPServer {
    /// `{query?}` (Zephyr `os_mgmt_bootloader_info()`): not built in → `MGMT_ERR_ENOTSUP`; no
    /// query → `{bootloader: "MCUboot"}`; `mode` → `{mode, no-downgrade?}` (the key only when
    /// true); any other query →
    /// `OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER` (3, `MGMT_ERR_ENOENT` for SMP version 1).
    func bootloaderInfo(query: String?) -> SMPAnswer {
        guard let mode = configuration.bootloaderMode else { return .mcumgrError(.notSupported) }
        switch query {
        case nil: return .success(["bootloader": "MCUboot"])
        case BootloaderInfo.modeQuery:
            var answer: [CBORValue: CBORValue] = ["mode": CBORValue(mode.rawValue)]
            if configuration.refusesDowngrade { answer["no-downgrade"] = .bool(true) }
            return .success(answer)
        default: return .osError(rc: 3, translated: .noEntry)
        }
    }
}
