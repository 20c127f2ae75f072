#!/usr/bin/env python3
"""The one JSON line that scripts/bench-gateways.sh prints, from the event logs it kept.

usage: bench-gateways-summary.py WORK GATEWAYS PER-GATEWAY CONCURRENCY REAL-TIME-FACTOR
                                 FLEET-WALL GATEWAY-WALL STATEMENTS|null TRANSACTIONS SERVER-CPU

WORK holds PHASE.start (when the phase started) and PHASE-N.jsonl for each process of the
`fleet` and `gateway` phases: each line `SECONDS<TAB>event`, stamped when it arrived.
"""
import glob
import json
import math
import statistics
import sys


def processes(work, phase):
    """Each process's events of a phase, as (seconds since the phase started, event)."""
    start = float(open(f"{work}/{phase}.start").read())
    for path in sorted(glob.glob(f"{work}/{phase}-*.jsonl")):
        lines = (line.split("\t", 1) for line in open(path))
        yield [(float(time) - start, json.loads(event)) for time, event in lines]


def firsts(events, is_kind):
    """Each device's first event of a kind, in order of time: [(time, device)]."""
    seen = {}
    for time, event in events:
        if is_kind(event) and event.get("device") not in seen:
            seen[event["device"]] = time
    return sorted((time, device) for device, time in seen.items())


def connecting(event):
    return event["event"] == "state" and event["state"] == "connecting"


def progress(event):
    return event["event"] == "progress"


def result(event):
    return event["event"] == "result"


def figures(values, scale=1000, digits=1):
    """Median and p95 (nearest rank) of seconds, in milliseconds by default."""
    values = sorted(values)
    if not values:
        return None
    p95 = values[math.ceil(0.95 * len(values)) - 1]
    return {"median": round(statistics.median(values) * scale, digits), "p95": round(p95 * scale, digits)}


def phase_figures(work, phase, start, concurrency):
    """From each device's `start` event to its first packet; from a device's result to the
    next device's connection in the same process (the k-th result frees the slot of the
    (concurrency + k)-th device); the first connection and the end after the last result."""
    to_packet, idle, first, end = [], [], [], []
    for events in processes(work, phase):
        started = dict((device, time) for time, device in firsts(events, start))
        for time, device in firsts(events, progress):
            if device in started:
                to_packet.append(time - started[device])
        connections = firsts(events, connecting)
        results = firsts(events, result)
        idle += [c[0] - r[0] for c, r in zip(connections[concurrency:], results)]
        first.append(connections[0][0])
        end.append(events[-1][0] - results[-1][0])
    return to_packet, idle, first, end


def hand_over(work, concurrency):
    """The gateways' empty slot in parts: a device's result to the store's answer to its report
    (`reported`); a result to the next claim in the same process (paired as in `phase_figures`);
    a device's claim to its connection."""
    to_reported, to_claim, to_connect = [], [], []
    for events in processes(work, "gateway"):
        results = firsts(events, result)
        reported = dict((device, time) for time, device in firsts(events, lambda e: e["event"] == "reported"))
        to_reported += [reported[device] - time for time, device in results if device in reported]
        claims = firsts(events, lambda event: event["event"] == "claimed")
        to_claim += [c[0] - r[0] for c, r in zip(claims[concurrency:], results)]
        connections = dict((device, time) for time, device in firsts(events, connecting))
        to_connect += [connections[device] - time for time, device in claims if device in connections]
    return {
        "result_to_reported_ms": figures(to_reported),
        "result_to_next_claim_ms": figures(to_claim),
        "claim_to_connect_ms": figures(to_connect),
    }


def main():
    work, gateways, per_gateway, concurrency, factor, fleet_wall, gateway_wall, calls, commits, cpu = sys.argv[1:]
    gateways, per_gateway, concurrency = int(gateways), int(per_gateway), int(concurrency)
    fleet_wall, gateway_wall = float(fleet_wall), float(gateway_wall)
    devices = gateways * per_gateway
    claimed = lambda event: event["event"] == "claimed"
    claim, gateway_idle, gateway_first, gateway_end = phase_figures(work, "gateway", claimed, concurrency)
    gateway_connect = phase_figures(work, "gateway", connecting, concurrency)[0]
    fleet_connect, fleet_idle, fleet_first, fleet_end = phase_figures(work, "fleet", connecting, concurrency)
    reported = {}
    for events in processes(work, "gateway"):
        for _, event in events:
            if event["event"] == "reported":
                reported[event["result"]] = reported.get(event["result"], 0) + 1
    print(json.dumps({
        "benchmark": "gateways", "gateways": gateways, "devices": devices,
        "concurrency_per_process": concurrency, "real_time_factor": float(factor),
        "wall_seconds": {"fleet": round(fleet_wall, 3), "gateway": round(gateway_wall, 3)},
        "reported": reported, "rollout_state": json.load(open(f"{work}/status.json"))["state"],
        "claim_to_first_packet_ms": figures(claim),
        "connect_to_first_packet_ms": {"fleet": figures(fleet_connect), "gateway": figures(gateway_connect)},
        "result_to_next_connect_ms": {"fleet": figures(fleet_idle), "gateway": figures(gateway_idle)},
        "gateway_hand_over": hand_over(work, concurrency),
        "start_to_first_connect_ms": {"fleet": figures(fleet_first), "gateway": figures(gateway_first)},
        "last_result_to_exit_ms": {"fleet": figures(fleet_end), "gateway": figures(gateway_end)},
        "gateway_statements_per_device": None if calls == "null" else round(int(calls) / devices, 2),
        "gateway_transactions_per_device": round(int(commits) / devices, 2),
        "server_cpu_seconds": round(float(cpu), 2),
        "server_cpu_ms_per_device": round(float(cpu) * 1000 / devices, 2),
        "ratios": {"gateway_wall_over_fleet_wall_minus_1": round(gateway_wall / fleet_wall - 1, 4)},
    }))


main()
