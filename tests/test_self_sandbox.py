"""The repo's own tests of drills/sandbox.py: --sandbox gives every protection it promises or
refuses, and ends only the processes of its own run."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_self_attacks import open_to_nobody  # the module pytest collects, from tests/

from drills import sandbox

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="switching users needs root")


def test_it_refuses_without_root_and_names_what_is_missing(monkeypatch):
    from drills import confine

    monkeypatch.setattr(confine, "available", lambda root: True)  # as a user, namespaces work
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(sandbox.SandboxRefused, match="not running as root.*--sandbox-accept-less"):
        sandbox.confine()
    accepted = sandbox.confine(accept_less=True)
    assert accepted.user is None and any("not running as root" in n for n in accepted.notes)
    assert "not" not in accepted.summary() and "root" not in accepted.summary()


def test_it_refuses_without_namespaces(monkeypatch):
    from drills import confine

    monkeypatch.setattr(confine, "available", lambda root: False)
    with pytest.raises(sandbox.SandboxRefused, match="no namespaces"):
        sandbox.confine()


def test_it_refuses_when_namespaces_are_turned_off(monkeypatch):
    # the runners would go without them (drills.judge.remote.confinement): no quiet downgrade
    monkeypatch.setenv("DRILLS_NO_NAMESPACES", "1")
    with pytest.raises(sandbox.SandboxRefused, match=r"no namespaces \(DRILLS_NO_NAMESPACES=1\)"):
        sandbox.confine()


def test_the_runners_uid_belongs_to_no_account_and_no_process():
    uid = sandbox.unused_uid()
    assert uid in sandbox.RUNNER_UIDS
    owners = {os.stat(f"/proc/{p}").st_uid for p in os.listdir("/proc") if p.isdigit()}
    assert uid not in owners


@ROOT_ONLY
def test_release_ends_the_runs_processes_and_no_strangers():
    open_to_nobody(Path(sys.prefix))  # the run's uid must be able to start this Python
    confinement = sandbox.confine()
    assert confinement.user is not None and confinement.notes == []
    uid, gid = confinement.user
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    as_user = {"cwd": "/", "extra_groups": [], "start_new_session": True}
    stranger = subprocess.Popen(sleep, user=65534, group=65534, **as_user)  # nobody's job
    ours = subprocess.Popen(sleep, user=uid, group=gid, **as_user)
    try:
        time.sleep(0.5)
        confinement.release()
        assert ours.wait(timeout=10) == -9
        assert stranger.poll() is None, "release killed a process of another user"
    finally:
        stranger.kill()
        ours.kill()
        confinement.release()
