/// Columns for people: each cell padded to its column's width, two spaces apart, the last
/// column left as it is.
enum TextTable {
    /// The header line and one line per row, each indented by two spaces.
    static func lines(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max()! }
        return all.map { row in
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1
                    ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            return "  " + cells.joined(separator: "  ")
        }
    }
}
