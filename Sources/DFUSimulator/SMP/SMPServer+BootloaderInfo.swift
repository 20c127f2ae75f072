import MCUmgr

extension SMPServer {
    /// `{query?}` (Zephyr `os_mgmt_bootloader_info()`): not built in → `MGMT_ERR_ENOTSUP`; no
    /// query → `{bootloader: "MCUboot"}`; `mode` → `{mode}`; any other query →
    /// `OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER` (3, `MGMT_ERR_ENOENT` for SMP version 1).
    func bootloaderInfo(query: String?) -> SMPAnswer {
        guard let mode = configuration.bootloaderMode else { return .mcumgrError(.notSupported) }
        switch query {
        case nil: return .success(["bootloader": "MCUboot"])
        case BootloaderInfo.modeQuery: return .success(["mode": CBORValue(mode.rawValue)])
        default: return .osError(rc: 3, translated: .noEntry)
        }
    }
}
