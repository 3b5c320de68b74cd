#!/usr/bin/env python3
"""Spawns a crowd, sends it to a point and prints when every one of its agents has arrived.

    python3 clients/python/examples/crowd.py [--url ws://localhost:8080/ws] [--count 30]
        [--group 5] [--target X,Y] [--spread keep|point] [--timeout 60]

On the server's machine the command token is found by itself (as herd-ctl finds it); elsewhere
set HERD_COMMAND_TOKEN. Exit codes: 0 all arrived, 1 not within --timeout, 2 refused or
unreachable.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Set, Tuple

try:
    import herd
except ImportError:  # run from the source tree without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import herd


def point(text: str) -> Tuple[float, float]:
    x, _, y = text.partition(",")
    return float(x), float(y)


def watch(c: herd.Client, mine: Set[int], since: int, timeout: float) -> bool:
    """Prints how many of `mine` have arrived as it changes; True once all have."""
    start = time.monotonic()
    shown = -1
    with c.snapshots(timeout=timeout) as snapshots:
        for snap in snapshots:
            if snap["tick"] < since:
                continue  # from before the order
            agents = [a for a in snap["agents"] if a["id"] in mine]
            arrived = sum(a["state"] == "arrived" for a in agents)
            if arrived != shown:
                print(f"tick {snap['tick']}: {arrived} of {len(mine)} arrived", flush=True)
                shown = arrived
            if len(agents) == len(mine) and arrived == len(mine):
                took = time.monotonic() - start
                print(f"all {len(mine)} arrived at tick {snap['tick']} ({took:.1f} s)")
                return True
            if time.monotonic() - start > timeout:
                return False
    return False


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default=os.environ.get("HERD_URL", "ws://localhost:8080/ws"))
    p.add_argument("--count", type=int, default=30, help="agents to spawn (default 30)")
    p.add_argument("--group", type=int, default=5, help="their group (default 5)")
    p.add_argument("--target", type=point,
                   help="X,Y (default: near the top right corner, off the default scenario's ring)")
    p.add_argument("--spread", default="keep", choices=["keep", "point"],
                   help="keep: as a body, each its offset from the centre; point: all to the point")
    p.add_argument("--timeout", type=float, default=60, help="seconds to wait for them")
    args = p.parse_args()

    try:
        c = herd.connect(args.url)
    except (herd.HerdError, ValueError) as err:
        print(f"crowd: {err}", file=sys.stderr)
        return 2
    with c:
        world = c.welcome["world"]
        target = args.target or (world["width"] * 7 / 8, world["height"] / 6)
        if c.paused:
            print("crowd: the world is paused; it moves on `resume` or `step`", file=sys.stderr)
        try:
            ack = c.spawn(count=args.count, group=args.group)
            mine = set(ack["agents"])
            order = c.set_target(agents=sorted(mine), target=target, spread=args.spread)
        except herd.CommandError as err:
            print(f"crowd: refused: {err.code}: {err.message}", file=sys.stderr)
            return 2
        print(f"spawned agents {min(mine)}-{max(mine)} at tick {ack['tick']}, "
              f"sent to ({target[0]:g}, {target[1]:g})")
        try:
            if watch(c, mine, order["tick"], args.timeout):
                return 0
        except herd.Timeout:
            pass  # no snapshot came: a paused world
        except herd.ConnectionClosed as err:
            print(f"crowd: {err}", file=sys.stderr)
            return 2
    print(f"crowd: not all arrived within {args.timeout:g} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
