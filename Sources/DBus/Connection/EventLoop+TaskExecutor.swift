/// The loop thread as a task executor: a task that prefers it runs between the loop's I/O, so
/// a reply or a signal resumes it on the thread that read the message, with no hand-over to
/// another thread (``DBusConnection/taskExecutor``).
extension EventLoop: TaskExecutor {
    /// Once the loop has stopped, the job runs on the global executor instead.
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.task(UnownedJob(job)))
    }
}
