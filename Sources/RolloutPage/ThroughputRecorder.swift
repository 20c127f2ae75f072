import Foundation

/// How many devices of each rollout had their result, sampled while the page runs: the store
/// keeps no time of a result, so the plot starts when the server does.
actor ThroughputRecorder {
    struct Sample: Sendable, Equatable {
        var time: Date
        var done: Int
    }

    /// About two hours of samples a minute apart, or less at the live view's pace.
    static let limit = 720
    /// A sample closer than this to the one before the last replaces the last, so that many viewers do not crowd the plot.
    static let spacing: TimeInterval = 10

    private var samples: [String: [Sample]] = [:]

    /// Records `done` for `rollout` at `time`; returns the rollout's samples, oldest first.
    func record(_ rollout: String, done: Int, at time: Date = Date()) -> [Sample] {
        var list = samples[rollout, default: []]
        let sample = Sample(time: time, done: done)
        if list.count > 1, time.timeIntervalSince(list[list.count - 2].time) < Self.spacing {
            list[list.count - 1] = sample
        } else {
            list.append(sample)
        }
        if list.count > Self.limit { list.removeFirst(list.count - Self.limit) }
        samples[rollout] = list
        return list
    }
}
