"""Fixtures: the real herd-server (one per test module) and clients of it.

The package is imported from the source tree (clients/python), installed or not.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the herd package of this tree
sys.path.insert(0, str(HERE))  # server.py

import herd  # noqa: E402
from server import Server  # noqa: E402

# Every wait of the tests is bounded by this (seconds): a broken server or client fails a test
# instead of hanging it.
TIMEOUT = 10.0


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A server on the empty 800 x 600 world, with a token made at start. Its clients find the
    token in the server's runtime file, as on a user's machine."""
    srv = Server(scenario="empty")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HERD_RUNTIME_DIR", srv.runtime_dir)
        mp.delenv("HERD_COMMAND_TOKEN", raising=False)
        mp.delenv("XDG_RUNTIME_DIR", raising=False)
        try:
            yield srv
        finally:
            srv.stop()


@pytest.fixture
def commander(server: Server) -> Iterator[herd.Client]:
    """A commander on a fresh, paused world: the test steps it when it wants ticks to pass."""
    with herd.connect(server.url, timeout=TIMEOUT) as c:
        c.reset()
        c.pause()
        yield c
        if not c.closed:
            c.resume()  # the next module's tests may want a running world
