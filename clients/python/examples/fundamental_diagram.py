#!/usr/bin/env python3
"""Runs a scenario headless with --trajectories, reads the trajectories back and plots the
fundamental diagram of a measurement area: each frame's mean speed against its density, beside
Weidmann's curve.

    python3 clients/python/examples/fundamental_diagram.py [--server build/herd-server]
        [--scenario bottleneck] [--ticks 3600] [--area 8,4,10,6] [--out fd.png] [--db run.db]

The default is the bottleneck scenario (metres and seconds) and the 2 x 2 m area before its door.
Density is the agents whose centre is inside the area over its size (1/m^2), speed their mean
speed (m/s), per frame with at least one agent inside. Weidmann (1993):
v = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4))). Needs numpy and matplotlib (Debian 12:
python3-numpy, python3-matplotlib). Exit codes: 0 plotted, 1 no frame had an agent in the area,
2 the server could not run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Tuple

import numpy as np

try:
    from herd import trajectories
except ImportError:  # run from the source tree without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from herd import trajectories

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402

REPO = Path(__file__).resolve().parents[3]

# Weidmann's fundamental diagram: free speed 1.34 m/s, jam density 5.4 /m^2, gamma 1.913 /m^2.
V0, RHO_MAX, GAMMA = 1.34, 5.4, 1.913


def weidmann(rho: np.ndarray) -> np.ndarray:
    return V0 * (1 - np.exp(-GAMMA * (1 / rho - 1 / RHO_MAX)))


def rectangle(text: str) -> Tuple[float, float, float, float]:
    x0, y0, x1, y1 = (float(v) for v in text.split(","))
    if x1 <= x0 or y1 <= y0:
        raise argparse.ArgumentTypeError("x0,y0,x1,y1 with x1 > x0 and y1 > y0")
    return x0, y0, x1, y1


def default_server() -> str:
    return os.environ.get("HERD_SERVER") or str(REPO / "build" / "herd-server")


def run_headless(server: str, scenario: str, ticks: int, db: Path) -> None:
    args = [server, "--headless", "--scenario", scenario, "--ticks", str(ticks), "--trajectories", str(db)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"$ {' '.join(args)}\n{r.stdout}{r.stderr}")


def fundamental_diagram(t: trajectories.Trajectories, area: Tuple[float, float, float, float]):
    """Per frame with an agent in `area`: its density (1/area unit) and mean speed."""
    x0, y0, x1, y1 = area
    size = (x1 - x0) * (y1 - y0)
    inside = (t.x >= x0) & (t.x <= x1) & (t.y >= y0) & (t.y <= y1)
    # Counts and summed speeds per frame, by each row's frame position.
    position = np.searchsorted(t.frames, t.frame)
    count = np.bincount(position[inside], minlength=len(t))
    speed = np.bincount(position[inside], weights=t.speed[inside], minlength=len(t))
    seen = count > 0
    return count[seen] / size, speed[seen] / count[seen]


def plot(density: np.ndarray, speed: np.ndarray, out: Path, title: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    ax.scatter(density, speed, s=8, alpha=0.5, label="herd, per frame")
    rho = np.linspace(0.3, RHO_MAX, 200)
    ax.plot(rho, weidmann(rho), color="black", label="Weidmann (1993)")
    ax.set_xlabel("density (1/m²)")
    ax.set_ylabel("mean speed (m/s)")
    ax.set_xlim(0, RHO_MAX + 0.2)
    ax.set_ylim(0, V0 + 0.3)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default=default_server(), help="herd-server (default $HERD_SERVER or build/herd-server)")
    p.add_argument("--scenario", default="bottleneck", help="a scenario name or .json file (default bottleneck)")
    p.add_argument("--ticks", type=int, default=3600, help="ticks to run (default 3600: 60 s at 60 Hz)")
    p.add_argument("--area", type=rectangle, default=(8.0, 4.0, 10.0, 6.0),
                   help="the measurement rectangle x0,y0,x1,y1 (default 8,4,10,6: before the door)")  # fmt: skip
    p.add_argument("--out", type=Path, default=Path("fundamental_diagram.png"), help="the PNG written")
    p.add_argument("--db", type=Path, help="keep the trajectory database here (default: a temporary file)")
    a = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="herd-fd-") as tmp:
        db = a.db or Path(tmp) / "trajectories.db"
        try:
            run_headless(a.server, a.scenario, a.ticks, db)
        except (OSError, RuntimeError) as e:
            print(f"fundamental_diagram: the server did not run: {e}", file=sys.stderr)
            return 2
        t = trajectories.read(db)
    density, speed = fundamental_diagram(t, a.area)
    if len(density) == 0:
        print(f"fundamental_diagram: no agent entered {a.area} in {len(t)} frames", file=sys.stderr)
        return 1
    plot(density, speed, a.out, f"{t.meta['scenario']}, {len(t)} frames at {t.meta['frame_rate']} Hz")
    print(
        f"{len(density)} of {len(t)} frames had agents in the area: density {density.mean():.2f} /m², "
        f"mean speed {speed.mean():.2f} m/s (Weidmann at that density: {weidmann(density.mean()):.2f}); "
        f"wrote {a.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
