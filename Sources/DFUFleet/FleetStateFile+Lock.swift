import DFUSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FleetStateFile {
    /// One running fleet per state file: an exclusive `flock` on `FILE.lock` beside it (the
    /// file is kept), held from the opening of the state file until the run has written it, and
    /// let go by the kernel when the process ends, however it ends. Two fleets on one file would
    /// each update every device the other has not recorded yet: the same devices twice at once.
    final class RunLock: Sendable {
        /// The lock file's descriptor until `release()`.
        private let held: Locked<Int32?>

        /// Takes the lock of the state file at `url` at once, or says that another fleet holds it.
        init(stateFile url: URL) throws(FleetInventoryError) {
            let path = url.path + ".lock"
            let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw FleetInventoryError(
                    "\(path): cannot open the state file's lock (\(String(cString: strerror(errno)))); "
                        + "check the folder's permissions, or give another --state file")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                Glibc.close(descriptor)
                throw FleetInventoryError(
                    "\(url.path) is the state file of another fleet running now; wait for it to end, "
                        + "or give another --state file")
            }
            held = Locked(descriptor)
        }

        /// Lets another fleet take the file (this run has written it).
        func release() {
            held.withLock { descriptor in
                if let descriptor { Glibc.close(descriptor) }
                descriptor = nil
            }
        }

        deinit { release() }
    }
}
