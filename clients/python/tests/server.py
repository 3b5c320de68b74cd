"""Starts the real herd-server binary for the tests and learns its port from what it prints, as
tests/e2e/lib/server.mjs does.

HERD_SERVER names the binary (ctest sets it); else the source tree's build/herd-server.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO_ROOT = Path(__file__).resolve().parents[3]
SERVER_BIN = Path(os.environ.get("HERD_SERVER") or REPO_ROOT / "build" / "herd-server")
WEB_ROOT = REPO_ROOT / "clients" / "web"
SCENARIO_DIR = REPO_ROOT / "server" / "scenarios"

_LISTENING = re.compile(r"herd: listening on http://([^/\s]+):(\d+)/")
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 5.0


class Server:
    """A herd-server process on 127.0.0.1 and a port the OS chose.

    Commands take the token the server makes at start (as a user runs it), which it leaves in
    ``runtime_dir``, a directory of this server's own; ``open_commands=True`` lets anyone command.
    """

    def __init__(
        self,
        scenario: str = "empty",
        seed: int = 1,
        extra_args: Optional[List[str]] = None,
        open_commands: bool = False,
    ) -> None:
        if not SERVER_BIN.exists():
            raise RuntimeError(f"herd server not found at {SERVER_BIN}: build it first, or set HERD_SERVER")
        self.runtime_dir = tempfile.mkdtemp(prefix="herd-py-runtime-")
        self.args = [
            str(SERVER_BIN),
            "--address", "127.0.0.1",
            "--port", "0",
            "--web-root", str(WEB_ROOT),
            "--scenario-dir", str(SCENARIO_DIR),
            "--scenario", scenario,
            "--seed", str(seed),
            *(extra_args or []),
        ]  # fmt: skip
        env: Dict[str, str] = {
            k: v for k, v in os.environ.items() if not k.startswith("HERD_") or k == "HERD_SERVER"
        }
        env["HERD_RUNTIME_DIR"] = self.runtime_dir
        if open_commands:
            env["HERD_OPEN_COMMANDS"] = "1"
        self._lines: List[str] = []
        self._listening = threading.Event()
        self.port = 0
        self.proc = subprocess.Popen(
            self.args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        # Drained for the server's whole life, so that a chatty server never blocks on the pipe.
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._listening.wait(START_TIMEOUT_S) or not self.port:
            self.stop()
            raise RuntimeError(
                f"herd server did not say where it listens within {START_TIMEOUT_S} s\n"
                f"$ {' '.join(self.args)}\n--- server output ---\n{self.output()}"
            )
        self.url = f"ws://127.0.0.1:{self.port}/ws"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.append(line)
            m = _LISTENING.search(line)
            if m and not self.port:
                self.port = int(m.group(2))
                self._listening.set()
        self._listening.set()  # exited: nobody waits in vain

    def token(self) -> str:
        """The token the server made at start, from the runtime file it leaves for its user's
        clients (written as it starts listening: waited for, within the start timeout)."""
        path = Path(self.runtime_dir) / f"server-{self.port}.json"
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                return str(json.loads(path.read_text())["token"])
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"no token in {path}\n{self.output()}") from None
                time.sleep(0.01)

    def output(self) -> str:
        return "".join(self._lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(STOP_TIMEOUT_S)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        shutil.rmtree(self.runtime_dir, ignore_errors=True)
