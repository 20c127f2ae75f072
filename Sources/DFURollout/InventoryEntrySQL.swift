/// Where both back ends keep a device's inventory entry (docs/rollout.md, "Layout"): the entry
/// alone in `inventory_entry_alone` for a rollout with an entry frame, a whole inventory file in
/// `inventory_entry` for one made before the frames (which gateways of earlier versions read).
package enum InventoryEntrySQL {
    /// The column a new device's entry goes in.
    package static func column(framed: Bool) -> String {
        framed ? "inventory_entry_alone" : "inventory_entry"
    }

    /// The entry of the device `d`, in whichever column it is kept.
    package static let entry = "COALESCE(d.inventory_entry_alone, d.inventory_entry)"
}
