import DFUFleet
import DFURollout
import Foundation

/// What a gateway agent reports while it runs.
public enum GatewayEvent: Sendable {
    /// The gateway holds the device now.
    case claimed(DeviceClaim)
    /// An event of the device's update (its fleet run of one device).
    case fleet(DeviceClaim, FleetEvent)
    /// The device's result is in the store.
    case reported(DeviceClaim, DeviceResult)
    /// The gateway gave the device back without a result, and why.
    case released(DeviceClaim, reason: String)
    /// The gateway stopped touching the device: its lease was taken over or ran out unrenewed.
    case leaseLost(DeviceClaim, reason: String)
    /// The store could not be reached (once per outage); the gateway keeps trying.
    case storeUnavailable(String)
    /// The store answers again.
    case storeAvailable
    /// A rollout this gateway cannot work on (its inventory or a package cannot be used), once.
    case rolloutUnusable(String, reason: String)
    /// With `exitWhenIdle`: the gateway does not exit because of this rollout, and why (it is
    /// paused, and may be resumed); once each time the rollout comes to that.
    case waiting(String, reason: String)
    /// Another running gateway has this gateway's name (the store last heard from it at the
    /// date given): this one stops, and gives back the devices it holds.
    case nameInUse(lastSeen: Date)
    /// No rollout has work this gateway can do (with `exitWhenIdle`, the last event).
    case idle
}
