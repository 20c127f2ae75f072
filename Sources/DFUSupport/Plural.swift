/// Counts for people: "1 package", "2 packages".
package enum Plural {
    /// `count` and `noun`, with an `s` unless the count is one (every noun counted for people
    /// here takes one).
    package static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
