"""The judge's fork server: its runner and its executor are forks of one image that has imported
torch and triton and nothing of the run.

A Python that imports torch takes two seconds of CPU before it does anything; a judge used to pay
that three times, once in itself and once in each process it started. Now its process, as soon
as it has imported them and before it reads anything of the run (its environment, the inputs'
seed, the learner's file), forks a server. Each process the judge asks for is forked from that
server, confines itself (drills.confine: namespaces, a read-only repository, no capabilities;
as another user under --sandbox), and only then reads what it is to be: its command line,
environment, folder and descriptors. So what two such processes share is the imports, and
nothing of one process reaches another: a runner started after a crash is as fresh as the first.

The forked process is handed to the judge, which is a subreaper: its parent exits at once, so
the judge waits for it, signals it and reads how it ended as for a child it started itself.

Standard library only, like drills.confine: the grader imports this module for `kept()`.
"""

import contextlib
import ctypes
import gc
import json
import os
import resource
import runpy
import select
import socket
import subprocess
import sys
import threading
import time
import traceback
import warnings

from drills import catalog, confine, processes, runtime

MAX_JOB = 1 << 20
ASKED_AGAIN_WITHIN = 0.05  # seconds: the grader's pool asks for its judges one after another
START_LIMIT = 60  # seconds for a fork to confine itself and say who it is
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4

# What a process's environment keeps when it must hold nothing of the grader's: enough for
# torch, triton and a GPU.
KEPT = ("PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "TRITON_INTERPRET", "HOME", "TMPDIR")
KEPT_PREFIXES = ("CUDA_", "NVIDIA_", "TRITON_", "OMP_", "MKL_")


def kept(environment: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in environment.items() if k in KEPT or k.startswith(KEPT_PREFIXES)}


class CannotStart(Exception):
    """The server could not fork the process asked for; str() says why."""


class Forked:
    """A process the fork server handed over, as subprocess.Popen shows one: pid, returncode,
    poll() and wait()."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped with the orphans (drills.processes)
                pid, status = self.pid, processes.reaped.pop(self.pid, 0)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.005)
        return self.returncode


class Server:
    """The fork server. With `fork_this_process`, forked from this process now, which must be
    the image its forks start from (the judge's, drills/judge/main.py); otherwise a Python of
    its own, started now, makes that image (any other process: it may have threads, and a
    fork of a process with threads can inherit a lock held forever)."""

    def __init__(self, fork_this_process: bool):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        processes.become_subreaper()  # what the server forks is handed over to this process
        # the runtime its image loads for: an exec'd server decides as load_the_image does
        self.interpreting = runtime.interpreter_requested() or (
            not fork_this_process and runtime.no_cuda_driver()
        )
        self.process = None
        if fork_this_process:
            self.pid = self._fork(theirs)
        else:
            self.process = subprocess.Popen(
                [sys.executable, "-B", "-m", "drills.judge.forks", str(theirs.fileno())],
                cwd=catalog.ROOT,
                env=kept(os.environ),
                stdin=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
            )
            self.pid = self.process.pid
        theirs.close()
        self.sock, self.lock = ours, threading.Lock()
        self.broken = ""  # why it was given up on
        self._namespaces: bool | None = None  # its first word, once it has its image

    def stop(self) -> None:
        """End it: an exec'd server is killed (it may still be importing torch); a forked one
        ends as its socket closes."""
        self.sock.close()
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    @property
    def namespaces(self) -> bool:
        """Whether its forks can confine themselves: its first word, waited for here."""
        with self.lock:
            return self._ready()

    def _ready(self) -> bool:
        if self._namespaces is None:
            self.sock.settimeout(START_LIMIT * 3)  # an exec'd server imports torch first
            self._namespaces = self.sock.recv(1) == b"1"
        return self._namespaces

    @staticmethod
    def _fork(theirs: socket.socket) -> int:
        sys.stdout.flush()
        sys.stderr.flush()
        judge = os.getpid()
        with warnings.catch_warnings():  # numpy's BLAS threads are idle: nothing is held
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            try:
                _serve(theirs, judge)
            finally:
                os._exit(0)  # whatever happened, never back into the judge's code
        return pid

    def spawn(self, job: dict, channel: int, log: int) -> Forked:
        """Fork a process for `job` (see _become): it talks to the judge on `channel` and
        writes its output to `log`."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with ours, theirs, self.lock:
            if self.broken:
                raise CannotStart(f"the judge's fork server stopped answering: {self.broken}")
            try:
                self._ready()
                self.sock.settimeout(START_LIMIT)
                ours.sendall(json.dumps(job).encode())
                socket.send_fds(self.sock, [b"fork"], [theirs.fileno(), channel, log])
                forked = self.sock.recv(64)  # once its first process is gone: handed over
            except OSError as e:
                # its answer may still come, and would be read as the next request's: no
                # request is sent again (closing the socket also ends the server)
                self.broken = str(e) or type(e).__name__
                self.sock.close()
                raise CannotStart(f"the judge's fork server could not be asked: {e}") from None
            if not forked:
                raise CannotStart("the judge's fork server is gone")
            ours.settimeout(1)
            try:
                said = json.loads(ours.recv(MAX_JOB))
            except (OSError, ValueError):
                said = {"error": f"it ended without a word ({forked.decode()})"}
        if "pid" not in said:
            raise CannotStart(f"a process could not be started: {said.get('error')}")
        return Forked(int(said["pid"]))


def _serve(sock: socket.socket, judge: int) -> None:
    """The server's loop: one fork per request, until the judge is gone."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL when the judge ends
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # no process of this user reads its memory
    if os.getppid() != judge:
        os._exit(0)
    mine = sock.fileno()  # and nothing else of the judge's: not the pipe its job comes in
    os.closerange(3, mine)
    os.closerange(mine + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    # whether its forks can confine themselves, tried in a fork of its own (it has no threads)
    sock.send(b"1" if confine.available(str(catalog.ROOT)) else b"0")
    asked = select.poll()
    asked.register(sock, select.POLLIN)
    while True:
        if not _warm and not asked.poll(ASKED_AGAIN_WITHIN * 1000):
            try:
                warm_the_compiler()
            except Exception:  # noqa: BLE001 - its forks then do it themselves, as triton does
                traceback.print_exc()
        try:
            _, fds, _, _ = socket.recv_fds(sock, 16, 3)
        except OSError:
            os._exit(0)
        if len(fds) != 3:
            os._exit(0)  # the judge closed its end
        try:
            pid = os.fork()
        except OSError:  # no memory or process left for now: this request fails, not the server
            pid = None
        if pid == 0:
            sock.close()
            _become(*fds)
        for fd in fds:
            os.close(fd)
        status = os.waitpid(pid, 0)[1] if pid else "no fork"
        try:
            sock.send(str(status).encode())
        except OSError:  # the judge gave up waiting for this answer, and on this server
            os._exit(0)


def _become(job_fd: int, channel: int, log: int) -> None:
    """In a fresh fork: read the job, confine, hand the confined process over, and in it run
    the job's program. Never returns."""
    talk = socket.socket(fileno=job_fd)
    try:
        job = json.loads(talk.recv(MAX_JOB))
        _output_to(log)

        def hand_over(pid: int) -> None:
            talk.send(json.dumps({"pid": pid}).encode())

        if job.get("judge"):  # the grader's judge: its own user and every privilege it has
            confine.go_on_in_a_child(hand_over)
        else:
            confine.switch_user(job.get("user"))
            settings = job.get("confinement")
            confinement = confine.Confinement(**settings) if settings else None
            confine.enter(confinement, hand_over)
    except BaseException as e:  # noqa: BLE001 - told to the judge, which reports it
        traceback.print_exc()
        with contextlib.suppress(OSError):
            talk.send(json.dumps({"error": f"{type(e).__name__}: {e}"}).encode())
        os._exit(1)
    talk.close()
    os._exit(_run(job, channel))


def _output_to(log: int) -> None:
    """stdout and stderr to `log`, with Python's objects for them made anew: the image's may
    stand for something else (pytest's capture, in the repo's own tests)."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        os.dup2(log, fd)
        setattr(sys, name, open(fd, "w", buffering=1, closefd=False))  # noqa: SIM115


def _run(job: dict, channel: int) -> int:
    """The job's program, in this process: as `python -B [-E -P] PROGRAM ARGS` would run it,
    with {channel} in its arguments standing for the judge's socket, under the job's limits
    and, with no_processes, unable to start another process."""
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(channel, 3)
        os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        sys.dont_write_bytecode = True
        confine.apply_limits(job.get("limits") or {})
        if job.get("no_processes"):
            _make_triton_driver()  # may compile triton's driver helpers: a C compiler runs
            confine.forbid_new_processes()
        if not job.get("repository"):
            _forget_the_repository()
        program = job["program"]
        sys.argv = [program, *(a.replace("{channel}", "3") for a in job["args"])]
        if job.get("module"):
            runpy.run_module(program, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(program, run_name="__main__")
        return 0
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except BaseException:  # noqa: BLE001 - printed, as Python would
        traceback.print_exc()
        return 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()


def _make_triton_driver() -> None:
    """The driver triton makes on first use, made now, while a process can still be started."""
    from triton.runtime import driver

    with contextlib.suppress(RuntimeError):  # no GPU: the runner gives triton one of its own
        driver.active.get_benchmarker  # noqa: B018 - reading it makes the driver


def _forget_the_repository() -> None:
    """What `python -E -P` gives a script: nothing of the repository importable, and none of its
    modules already imported."""
    root = str(catalog.ROOT)
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != root]
    for name in [n for n in sys.modules if n == "drills" or n.startswith("drills.")]:
        del sys.modules[name]


def load_the_image() -> None:
    """Import what every forked process needs, once, in the process its forks start from."""
    from drills import runtime

    runtime.interpret_where_no_gpu_can_be()  # before torch imports triton.language
    runtime.one_thread_when_interpreting()
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import triton.language  # noqa: F401

    # what the image holds lives as long as its forks: a full collection in one of them (the
    # judge's after each large case, Python's own now and then) need not walk it, 0.1 s a
    # time in a judge on an H100 host
    gc.freeze()


_warm = False  # whether warm_the_compiler() was called in this process or one it forked from


def warm_the_compiler() -> None:
    """What a GPU launch's first compile (or cache lookup) computes in any process, done once
    in a fork server for every fork after it: the hash of triton's own files, which every
    compiled kernel's key holds (0.45 s on an H100 host, in each executor; recorded on disk for
    later grades, drills.judge.gpu_compile.record_triton_key), gluon's modules,
    which the first specialization of a launch imports (0.12 s), and triton's CUDA helper
    module, whose copy in each fork's cache its driver loads rather than compiles
    (drills.judge.gpu_compile.driver_helpers). None touches the GPU, which a fork server must
    not: a CUDA context does not survive a fork.

    A server does it when no fork is asked of it (_serve): the grader's, once it has forked
    the judges it was asked for, so that they start without waiting for it (each judge's own
    server does it while the judge collects its suite) and the judges of later grades under
    `make watch` find it done."""
    global _warm
    from drills import runtime
    from drills.judge import gpu_compile

    _warm = True
    gpu_compile.record_triton_key()  # the interpreter's judge compiles for sm_90 too
    if runtime.interpreter_requested():
        return
    import triton.experimental.gluon  # noqa: F401

    gpu_compile.build_driver_helpers()


_server: list[Server] = []
_starting = threading.Lock()


def start() -> None:
    """Fork the server from this process now: the judge does this first thing, once it has
    loaded the image and before it reads anything of the run (drills/judge/main.py)."""
    if not _server:
        _server.append(Server(fork_this_process=True))


def _running() -> Server:
    # Outside a judge (the grader, the repo's own tests): a server of its own. It dies with
    # the thread that starts it (PR_SET_PDEATHSIG follows a thread), so that thread must
    # outlive its uses: the main thread, or one of the grader's pool, which lives until the
    # pool is done.
    with _starting:  # the grader's pool asks for it from two threads at once
        if not _server:
            _server.append(Server(fork_this_process=False))
    return _server[0]


def start_loading() -> None:
    """Start the server now and go on while it imports torch and triton, which is most of a
    grade's start on a GPU (3 s on an H100): the grader calls it before its own checks, from
    its main thread, once it knows a judge will be needed."""
    _running()


def loading_for(interpreting: bool) -> None:
    """Once the grader has chosen the runtime (runtime.select, which asks the driver, after
    start_loading): a server whose image is loading for the other one, which happens where a
    driver loads but finds no device, is ended, and the next spawn starts one for this runtime."""
    with _starting:
        if _server and _server[0].interpreting != interpreting:
            _server.pop().stop()


def spawn(job: dict, channel: int, log: int) -> Forked:
    return _running().spawn(job, channel, log)


def namespaces() -> bool:
    """Whether a forked process can confine itself on this machine (drills.confine)."""
    return _running().namespaces


def confinement(hide: str | None = None, writable: list[str] | None = None) -> dict | None:
    """How a runner or the executor is confined (drills.confine), with `hide` looking empty to
    it and only `writable` (and its own temporary folders) writable; None where this machine
    does not allow it (user namespaces turned off): then it runs as a plain process, and the
    integrity guard is what stands between it and the repository and Python's environment.
    DRILLS_NO_NAMESPACES=1 asks for that fallback (drills.confine.turned_off)."""
    if confine.turned_off() or not namespaces():
        return None
    return {"root": str(catalog.ROOT), "hide": hide, "writable": writable or []}


def server_pids() -> tuple[int, ...]:
    """What a judge's clean-up of orphans must spare."""
    return tuple(server.pid for server in _server)


if __name__ == "__main__":  # a server started by a process that is no clean image itself
    # served by the module its forks import, so that they find it warm (_warm); its parent
    # read first: one that ends while torch is imported must not be mistaken for init
    from drills.judge import forks

    parent = os.getppid()
    forks.load_the_image()
    forks._serve(socket.socket(fileno=int(sys.argv[1])), parent)
