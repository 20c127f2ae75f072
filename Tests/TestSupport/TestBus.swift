import DBus
import DFUSupport

/// The tests' private bus.
package typealias TestBus = PrivateBus

extension PrivateBus {
    /// A new connection to this bus.
    package func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(address))
    }
}
