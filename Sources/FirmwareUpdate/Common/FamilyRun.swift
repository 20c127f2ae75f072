/// One family's update of one device, from the first connection to the result: Nordic DFU's
/// `UpdateRun` and SMP's `SMPUpdateRun`. ``PackageUpdater`` starts it with a fresh session; what
/// the family keeps between its steps beyond the session's events, log and tally is its own.
protocol FamilyRun: SendableMetatype {
    associatedtype Package: Sendable

    init(session: UpdateSession, package: Package)

    /// Runs the update to its end and finishes the session with the result.
    func run() async

    /// The family's advice for a failure of its update; nil for the error's own.
    static func advice(for error: DFUError, options: DFUOptions) -> String?
}

/// How a family updates a device with its package: made in the family's folder from its run
/// (``UpdatablePackage/runner``), used by ``PackageUpdater``.
public struct FamilyRunner<Package: Sendable>: Sendable {
    /// Runs the update of `package` in `session`.
    let run: @Sendable (UpdateSession, Package) async -> Void
    /// The family's advice for a failure (`FamilyRun.advice(for:options:)`).
    let advice: @Sendable (DFUError, DFUOptions) -> String?

    init<Run: FamilyRun>(_ run: Run.Type) where Run.Package == Package {
        self.run = { session, package in await Run(session: session, package: package).run() }
        self.advice = { error, options in Run.advice(for: error, options: options) }
    }
}
