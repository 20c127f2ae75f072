/// The engine's copy of the device's packet receipt counter (protocol doc §1.4, §2.5).
///
/// Nordic's bootloaders count firmware packets and notify every `interval` of them; the count
/// restarts when the interval is set, and on Secure DFU also on every Create. A Secure receipt
/// is byte for byte a Calculate Checksum response, so the only way to tell which is which is
/// this count: every receipt due for packets written before a request arrives before that
/// request's response, and the ledger says how many those are.
struct PacketReceiptLedger {
    /// Packets per receipt; 0 when receipts are off.
    private(set) var interval = 0
    /// Packets counted since the counter restarted.
    private(set) var packetsCounted = 0
    /// Receipts taken since the counter restarted.
    private(set) var receiptsTaken = 0
    /// Set when the device's count may differ from this one: a receipt did not come when due,
    /// came when none was due, or packets were lost (a bootloader that drops a packet for want
    /// of a buffer does not count it). The engine then restarts the count on the device before
    /// it tells a receipt from a response again.
    var isUncertain = false

    /// The device restarts its count (the interval was set, or Secure Create).
    mutating func restart(interval: Int) {
        self.interval = interval
        packetsCounted = 0
        receiptsTaken = 0
        isUncertain = false
    }

    /// The device restarts its count, keeping the interval.
    mutating func restart() { restart(interval: interval) }

    mutating func count(packets: Int) { packetsCounted += packets }

    /// Receipts the device has sent, or will send, for the packets counted, not yet taken.
    var due: Int { interval > 0 ? max(0, packetsCounted / interval - receiptsTaken) : 0 }

    /// How many packets until the device sends its next receipt; `nil` when receipts are off.
    var packetsUntilNextReceipt: Int? { interval > 0 ? interval - packetsCounted % interval : nil }

    /// One receipt arrived.
    mutating func take() {
        if due == 0 { isUncertain = true }
        receiptsTaken += 1
    }
}
