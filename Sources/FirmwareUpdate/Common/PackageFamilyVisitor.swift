import MCUmgr
import NordicDFU

/// Work on a package that each family does in its own way outside the engine (`inspect`'s
/// report): one method per family's package, reached through ``UpdatablePackage/accept(_:)``
/// without a `switch` or a downcast. A family adds its method here, and the compiler then asks
/// every visitor for it.
public protocol PackageFamilyVisitor {
    /// What the work gives.
    associatedtype Outcome

    /// The work on a Nordic DFU package (Secure or Legacy).
    func visit(_ package: DFUPackage) throws -> Outcome

    /// The work on an MCUboot package (one image, or an nRF Connect SDK `dfu_application.zip`).
    func visit(_ package: MCUbootPackage) throws -> Outcome
}
