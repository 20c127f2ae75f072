extension Array where Element: Comparable {
    /// The middle value once sorted (the upper one of the two middle values of an even count);
    /// nil for an empty array.
    var median: Element? { isEmpty ? nil : sorted()[count / 2] }
}
