"""clients/python is a package pip installs: built from a copy of the directory (a build writes
into the tree it builds), offline with the machine's setuptools, installed into a directory of
the test's, and imported from there by a fresh interpreter, its command catalogue with it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from server import REPO_ROOT

PACKAGE = REPO_ROOT / "clients" / "python"
PIP_TIMEOUT_S = 120


def pip(*args: str) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
    )
    assert r.returncode == 0, f"pip {' '.join(args)}\n{r.stdout}\n{r.stderr}"
    return r


def test_pip_builds_and_installs_the_package(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    pip("wheel", "--no-build-isolation", "--no-index", "--no-deps", "-w", str(tmp_path / "dist"), str(source))
    (wheel,) = (tmp_path / "dist").glob("herd-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"herd/{p.name}" for p in (PACKAGE / "herd").glob("*.py")}
    assert modules | {"herd/py.typed", "herd/catalogue.json"} <= names, sorted(names)
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    requires = zipfile.ZipFile(wheel).read(metadata).decode()
    assert re.search(r"^Requires-Dist: websockets ?\(?>=10\.4\)?$", requires, re.M), requires

    site = tmp_path / "site"
    pip("install", "--no-index", "--no-deps", "--target", str(site), str(wheel))
    probe = (
        "import herd, herd.binary, inspect, pathlib, sys;"
        "print(pathlib.Path(herd.__file__).resolve().parent);"
        "f = herd.binary.decode_frame(bytes.fromhex(open(sys.argv[1]).read()));"
        "print(len(f.agents));"
        "print(','.join(inspect.signature(herd.Client.spawn).parameters))"
    )
    r = subprocess.run(
        [sys.executable, "-c", probe, str(REPO_ROOT / "protocol/fixtures/binary/keyframe.hex")],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
    )
    assert r.returncode == 0, r.stderr
    where, count, spawn = r.stdout.split()
    assert Path(where) == (site / "herd").resolve()  # the installed copy, not the tree's
    assert int(count) == 6
    # The methods are made from the installed catalogue (herd/catalogue.json, package data).
    assert {"count", "agents", "team", "sight"} <= set(spawn.split(",")), spawn
