import Foundation

/// Text from the store (device names, error messages, gateway names) made safe for HTML: in an
/// element's content and in a quoted attribute alike.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A URL query value (`?gateway=…`), percent-encoded, then escaped for the attribute.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return escape(text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
    }
}
