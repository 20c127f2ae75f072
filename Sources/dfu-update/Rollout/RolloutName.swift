import ArgumentParser

/// What a new rollout's name must be: it is typed again for status, pause and cancel, and
/// printed one per line.
enum RolloutName {
    static func check(_ name: String) throws {
        if name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("a rollout's name cannot be empty")
        }
        if name.trimmingCharacters(in: .whitespaces) != name {
            throw ValidationError("the rollout name '\(name)' has spaces around it; give it without them")
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError(
                "the rollout name \(name.debugDescription) holds a control character (a line break, a tab); "
                    + "give a name without one")
        }
    }
}
