import Foundation

extension FleetInventory {
    /// `data` without the UTF-8 byte order mark it may start with: spreadsheet programs write
    /// one at the head of a CSV export ("CSV UTF-8"), and some editors at the head of JSON,
    /// which RFC 8259 §8.1 lets a reader ignore. Left in, it would be part of the first column's
    /// name (or hide the JSON's `{`), a difference no one sees in the file.
    static func withoutByteOrderMark(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
    }
}
