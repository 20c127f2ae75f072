/// The connection-event arithmetic of one BLE link (docs/simulator.md, "Link and flash model").
///
/// Events happen every `interval`; event `k` is at `k · interval`. In one event the central sends
/// at most `slotsPerEvent` link-layer packets; the peripheral answers in the same event. Anything
/// received in event `k` is handled after it, so a reply goes out in event `k + 1` at the
/// earliest, and a central that received something in event `k` sends next in event `k + 1`.
struct LinkSchedule {
    let interval: Nanoseconds
    let slotsPerEvent: Int
    /// The event the central is filling, and how many of its slots are taken.
    private var fillEvent: Int64 = -1
    private var fillSlots = 0
    /// The central cannot send before this event (it is still waiting for something it received).
    private var nextCentralEvent: Int64 = 0
    /// Notifications leave in order.
    private var lastNotificationEvent: Int64 = 0

    init(interval: Nanoseconds, slotsPerEvent: Int) {
        self.interval = interval
        self.slotsPerEvent = slotsPerEvent
    }

    func time(ofEvent event: Int64) -> Nanoseconds { event * interval }

    /// The first event at or after `time`.
    func event(atOrAfter time: Nanoseconds) -> Int64 { (time + interval - 1) / interval }

    /// Puts `slots` link-layer packets from the central into the first event with room that is
    /// not earlier than `now`; moves `now` to that event (the sender waits for its turn on air).
    mutating func transmit(slots: Int, now: inout Nanoseconds) -> Int64 {
        var event = max(self.event(atOrAfter: now), nextCentralEvent, fillEvent)
        if event == fillEvent && fillSlots + slots > slotsPerEvent { event += 1 }
        if event != fillEvent {
            fillEvent = event
            fillSlots = 0
        }
        fillSlots += slots
        now = max(now, time(ofEvent: event))
        return event
    }

    /// The event a peripheral packet goes out in, answering something received in
    /// `triggerEvent`, once the device is ready at `readyAt`.
    mutating func replyEvent(after triggerEvent: Int64, readyAt: Nanoseconds) -> Int64 {
        let event = max(triggerEvent + 1, self.event(atOrAfter: readyAt), lastNotificationEvent)
        lastNotificationEvent = event
        return event
    }

    /// The central has received a packet sent in `event`: its clock reaches that event, and it
    /// sends again from the next one.
    mutating func centralReceived(inEvent event: Int64, now: inout Nanoseconds) {
        now = max(now, time(ofEvent: event))
        nextCentralEvent = max(nextCentralEvent, event + 1)
    }
}
