"""The Python shown to users runs as written: every ```python block of the README and of
clients/python/README.md, and examples/crowd.py, each in a fresh interpreter against a real
server started as scripts/run starts it (the default scenario, a token made at start, found in
the server's runtime file). Only the README's port is changed, to the server's. A block that
reads a trajectory database (``run.db``) runs where the headless command its comment gives has
just written one. (examples/fundamental_diagram.py: test_trajectories.py.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest
from conftest import TIMEOUT
from server import REPO_ROOT, SCENARIO_DIR, SERVER_BIN, Server

import herd

PACKAGE = REPO_ROOT / "clients" / "python"
# A block waits for agents to walk across the world: the world runs 4 times faster than real
# time for these tests (set_param keeps the world's dt), and a block gets this long: a bound on a
# hang, not a measure (under a parallel ctest the world has been seen to run 6 times slower).
RUN_TIMEOUT_S = 150


def python_blocks(markdown: Path) -> List[Tuple[int, str]]:
    """The ```python blocks of a Markdown file, each with its first line's number."""
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", markdown.read_text(), re.M | re.S):
        line = markdown.read_text()[: m.start()].count("\n") + 2
        blocks.append((line, m.group(1)))
    return blocks


# What each README's example says it prints.
PRINTS = {
    REPO_ROOT.name: r"^all 20 arrived at tick \d+$",
    "python": r"^unknown_agent agent 999999 does not exist$",
}
# A block reading trajectories, the command that writes its file (its comment's), what it prints.
TRAJECTORY_FILE = 'trajectories.read("run.db")'
TRAJECTORY_RUN = "build/herd-server --headless --scenario bottleneck --ticks 600 --trajectories run.db"
TRAJECTORY_PRINTS = r"^bottleneck 201 frames, 150 agents at tick 600$"

README_BLOCKS = [
    pytest.param(path, code, id=f"{path.relative_to(REPO_ROOT)}:{line}")
    for path in (REPO_ROOT / "README.md", PACKAGE / "README.md")
    for line, code in python_blocks(path)
]


def fast_default_server() -> Iterator[Server]:
    srv = Server(scenario="default")
    try:
        with herd.connect(srv.url, token=srv.token(), timeout=TIMEOUT) as c:
            c.set_param(tick_rate=240)
        yield srv
    finally:
        srv.stop()


default_server = pytest.fixture(scope="module")(fast_default_server)
# A world of its own: the README blocks leave 20 agents standing round one point, and a crowd
# agent placed among them stays boxed in (standing agents do not make way).
fresh_server = pytest.fixture(scope="function")(fast_default_server)


def run(srv: Server, args: List[str], runtime_dir: str = "", cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERD_")}
    env.update(PYTHONPATH=str(PACKAGE), HERD_RUNTIME_DIR=runtime_dir or srv.runtime_dir)
    return subprocess.run(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )


def test_the_readmes_have_python_examples() -> None:
    found = [(Path(str(p.values[0])), str(p.values[1])) for p in README_BLOCKS]
    assert [path.parent.name for path, _ in found] == [REPO_ROOT.name, "python", "python"]
    for _, code in found:
        if TRAJECTORY_FILE in code:
            assert TRAJECTORY_RUN in code  # the command the test runs first
        else:
            assert "localhost:8080" in code  # the address the test replaces


@pytest.mark.parametrize("path,code", README_BLOCKS)
def test_each_readme_example_runs(default_server: Server, path: Path, code: str, tmp_path: Path) -> None:
    if TRAJECTORY_FILE in code:
        args = [str(SERVER_BIN), *TRAJECTORY_RUN.split()[1:], "--scenario-dir", str(SCENARIO_DIR)]
        made = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        assert made.returncode == 0, made.stdout + made.stderr
        r = run(default_server, ["-c", code], cwd=tmp_path)
        expected = TRAJECTORY_PRINTS
    else:
        r = run(default_server, ["-c", code.replace("localhost:8080", f"localhost:{default_server.port}")])
        expected = PRINTS[path.parent.name]
    assert r.returncode == 0, f"{path}:\n{code}\n--- stdout ---\n{r.stdout}\n--- stderr ---\n{r.stderr}"
    assert re.search(expected, r.stdout, re.M), r.stdout


def test_the_crowd_example_sees_its_crowd_arrive(fresh_server: Server) -> None:
    r = run(
        fresh_server,
        [str(PACKAGE / "examples" / "crowd.py"), "--url", fresh_server.url, "--count", "12",
         "--group", "4", "--target", "650,500", "--timeout", "120"],
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^all 12 arrived at tick \d+ \(", r.stdout, re.M), r.stdout


def test_the_crowd_example_says_when_it_cannot_command(default_server: Server, tmp_path: Path) -> None:
    crowd = [str(PACKAGE / "examples" / "crowd.py"), "--url", default_server.url]
    r = run(default_server, crowd, runtime_dir=str(tmp_path))  # no runtime file: no token
    assert r.returncode == 2
    assert "unauthorized" in r.stderr
