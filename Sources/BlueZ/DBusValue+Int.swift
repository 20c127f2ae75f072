import DBus

extension DBusValue {
    /// Any integer value that fits an `Int`.
    var intValue: Int? { integerValue.flatMap { Int(exactly: $0) } }
}
