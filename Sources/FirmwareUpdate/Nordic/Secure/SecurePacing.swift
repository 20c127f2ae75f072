/// What Secure DFU has learned of the device's pace over one update: how long to wait after
/// Create, and whether its packet receipts can be counted on.
struct SecurePacing {
    /// The wait after each data object's Create, learned from packets lost while flash was busy.
    var flashWait = LearnedFlashWait()
    /// Secure data objects in a row whose receipt for the last packet did not come where due
    /// although no packet was lost (none came, or one came early); one that came resets it.
    var receiptsMissedInARow = 0

    /// Whether Secure DFU gives up the receipts it asks for by default: twice in a row the
    /// device's receipt did not come where due with nothing lost (it sends none, or counts in a
    /// way the engine cannot follow), so Calculate Checksum checks each object instead of a wait
    /// for a receipt that times out. A receipt interval the user chose (`chosen`) stays.
    func givesUpDefaultReceipts(chosen: UInt16?) -> Bool {
        chosen == nil && receiptsMissedInARow >= 2
    }
}
