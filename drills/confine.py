"""Confining a freshly forked process from within: namespaces, mounts, capabilities and a seccomp
filter against new processes (Linux).

What `unshare --user --map-root-user --mount --pid --fork --mount-proc` followed by `setpriv
--bounding-set=-all --inh-caps=-all --no-new-privs` gives a program it execs, given here to the
process itself, so that a process forked from one that has already imported torch needs no exec
(drills/judge/forks.py). Inside, the process is the first of a pid namespace of its own and sees
no process of the grader's, so it can neither find nor signal one, and when it ends the kernel
ends everything it started. In its mount namespace every file system is read-only, the
temporary folders (/tmp, /var/tmp, /dev/shm, the grader's TMPDIR: other grades' private
copies lie there) are empty ones of its own, what holds answers (solutions/, tests/, .git) is
empty, and so is the judge's triton cache if asked (a kernel binary planted there would be
what the judge runs). Only its own folders (`writable`) can be written; the repository and
Python's own folders stay where they are, read-only, even where they lie in a temporary
folder. Then it gives up every capability, so it cannot undo that.

Standard library only: the grader, which imports no torch, asks `available()` too.
"""

import ctypes
import errno
import os
import resource
import signal
import sys
import warnings
from dataclasses import dataclass, field

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = -100, 0x8000, 1
_SYS_MOUNT_SETATTR = 442  # the same number on every architecture (a syscall after 5.1's)
_O_PATH = 0o10000000
# the folders where temporary files go: each confined process gets empty ones of its own
TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
SCRATCH_SIZE = "size=512m"
# statvfs flags a read-only remount must keep: a user namespace may not clear them
_KEPT_FLAGS = {
    os.ST_NOSUID: _MS_NOSUID,
    os.ST_NODEV: _MS_NODEV,
    os.ST_NOEXEC: _MS_NOEXEC,
    os.ST_NOATIME: 1024,
    os.ST_NODIRATIME: 2048,
    os.ST_RELATIME: 1 << 21,
}
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP = 1, 4, 24
_PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
HIDDEN = ("solutions", "tests", ".git")  # what a confined process must not read


class CannotConfine(OSError):
    """A step of the confinement failed: the process must not go on."""


@dataclass(frozen=True)
class Confinement:
    root: str  # the repository: read-only, its HIDDEN parts empty
    hide: str | None = None  # a folder that looks empty and read-only inside (a triton cache)
    writable: tuple[str, ...] = field(default=())  # its own folders: the only ones it can write

    def __post_init__(self):
        object.__setattr__(self, "writable", tuple(self.writable))  # a list, from JSON


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _call(name: str, *args) -> None:
    if getattr(_libc(), name)(*args) != 0:
        errno = ctypes.get_errno()
        raise CannotConfine(errno, f"{name}{args[:2]}: {os.strerror(errno)}")


def _mount(source, target, fstype, flags: int, data=None) -> None:
    encoded = [None if s is None else os.fsencode(s) for s in (source, target, fstype, data)]
    _call("mount", encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3])


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _enter_namespaces(user: tuple[int, int] | None = None) -> None:
    """New user, mount and pid namespaces, this user mapped to root inside: the next fork is
    the pid namespace's first process. With `user` (for root only), that user is mapped to
    itself too, for the process to become later (become())."""
    uid, gid = os.geteuid(), os.getegid()
    if user is None:
        _call("unshare", _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID)
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")
        return
    # a map of more than this user needs CAP_SETUID out here: a child writes it, as
    # newuidmap would, once this process is in its namespace
    ready, done = os.pipe()
    helper = os.fork()
    if helper == 0:
        os.close(done)
        os.read(ready, 1)
        try:
            for kind, own, later in (("uid", uid, user[0]), ("gid", gid, user[1])):
                _write(f"/proc/{os.getppid()}/{kind}_map", f"0 {own} 1\n{later} {later} 1")
        except OSError:
            os._exit(1)
        os._exit(0)
    os.close(ready)
    try:
        _call("unshare", _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID)
    finally:
        os.close(done)  # the helper reads nothing: its cue either way
        mapped = os.waitpid(helper, 0)[1] == 0
    if not mapped:
        raise CannotConfine(0, "the user namespace's maps could not be written")


def _read_only(path: str) -> None:
    _mount(path, path, None, _MS_BIND)
    _remount(path, read_only=True)


def _remount(path: str, read_only: bool) -> None:
    """Remount the bind mount at `path` read-only or writable, keeping the flags a user namespace
    may not clear."""
    kept = os.statvfs(path).f_flag
    flags = sum(ms for st, ms in _KEPT_FLAGS.items() if kept & st)
    _mount(None, path, None, _MS_REMOUNT | _MS_BIND | flags | (_MS_RDONLY if read_only else 0))


def _empty(path: str) -> None:
    if os.path.isdir(path):  # a link to a folder too: what it points to is covered
        _mount("none", path, "tmpfs", _MS_RDONLY, "size=4k")
    elif os.path.lexists(path):
        _mount("/dev/null", path, None, _MS_BIND)


def _everything_read_only() -> None:
    """Every mount of this namespace read-only, at once (mount_setattr, Linux 5.12), or one by
    one where the kernel is older."""
    attr = (ctypes.c_uint64 * 4)(_MOUNT_ATTR_RDONLY, 0, 0, 0)
    done = _libc().syscall(
        _SYS_MOUNT_SETATTR, _AT_FDCWD, b"/", _AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)
    )
    if done == 0:
        return
    if ctypes.get_errno() not in (errno.ENOSYS, errno.EINVAL):
        raise CannotConfine(ctypes.get_errno(), f"mount_setattr: {os.strerror(ctypes.get_errno())}")
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4].encode().decode("unicode_escape") for line in f]
    for point in points:
        if not os.statvfs(point).f_flag & os.ST_RDONLY:
            _remount(point, read_only=True)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _mounts(confinement: Confinement) -> None:
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing below propagates outside
    temporary = {os.path.realpath(t) for t in (*TEMPORARY, os.environ.get("TMPDIR") or "/tmp")}
    # its own folders and Python's, as they are, before anything covers them
    seen = [os.path.realpath(p) for p in confinement.writable]
    seen += [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)]
    # and the packages a venv layered over another Python imports (drills/bootstrap.py), which
    # may lie under a temporary folder (a checkout in /tmp, as CI's is)
    seen += [
        os.path.realpath(p) for p in sys.path if p.endswith(("site-packages", "dist-packages"))
    ]
    opened = {path: os.open(path, _O_PATH) for path in dict.fromkeys(seen) if os.path.isdir(path)}
    _read_only(confinement.root)
    if confinement.hide and os.path.isdir(confinement.hide):
        _empty(confinement.hide)
    for name in HIDDEN:
        _empty(os.path.join(confinement.root, name))
    root = os.path.realpath(confinement.root)
    opened[root] = os.open(root, _O_PATH)  # with what is hidden in it
    _everything_read_only()
    _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)  # this pid namespace's
    writable = {os.path.realpath(p) for p in confinement.writable}
    temporary -= writable  # one it must share (CUDA IPC's /dev/shm) stays the machine's
    for folder in sorted(t for t in temporary if os.path.isdir(t)):
        _mount("none", folder, "tmpfs", _MS_NOSUID | _MS_NODEV, f"{SCRATCH_SIZE},mode=1777")
    for path, fd in opened.items():
        covered = any(_under(path, t) for t in temporary)
        if covered:
            os.makedirs(path, exist_ok=True)
        if covered or path in writable:
            _mount(f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC)
            _remount(path, read_only=path not in writable)
        os.close(fd)


def _drop_capabilities(user: tuple[int, int] | None = None) -> None:
    """Every capability gone, for good: the bounding set, the ambient set, and the effective,
    permitted and inheritable sets; nothing exec'd later can gain one. With `user`, it becomes
    that user on the way (which it can only while it still holds CAP_SETUID)."""
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for capability in range(last + 1):
        _call("prctl", _PR_CAPBSET_DROP, capability, 0, 0, 0)
    switch_user(user)
    _call("prctl", _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    _call("capset", header, (ctypes.c_uint32 * 6)())
    with open("/proc/self/status") as f:
        held = [line for line in f if line.startswith("Cap") and int(line.split()[1], 16)]
    if held:
        raise CannotConfine(0, f"capabilities still held: {' '.join(held)}")


def _drop_what_is_held() -> None:
    """Without namespaces: no capability, and none to gain. A process that holds some (root,
    where a container allows no user namespace) drops every one, as a confined process does;
    one that holds none (a learner's own user) may not touch its bounding set and needs only
    no_new_privs, which keeps an exec'd setuid program from gaining any."""
    with open("/proc/self/status") as f:
        held = any(line.startswith(("CapEff", "CapPrm")) and int(line.split()[1], 16) for line in f)
    if held:
        _drop_capabilities()
    else:
        _call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def enter(
    confinement: Confinement | None,
    hand_over=None,
    *,
    become_later: bool = False,
    user: tuple[int, int] | None = None,
) -> None:
    """Confine this process, a fresh single-threaded fork; returns in the confined process, the
    first of its pid namespace (without namespaces, in a plain child without capabilities or
    a way to gain one). This process never
    returns: `hand_over(pid)` passes the child's pid on, and it exits, leaving the child to the
    nearest subreaper; without `hand_over` it waits for the child and ends as the child did.
    Raises CannotConfine before the fork if a namespace cannot be had.

    With become_later, the process keeps its capabilities in its namespaces until it calls
    become(user) itself: what it must do as the grader's user first (read files only that user
    may, start threads, which a process must not have when it makes a user namespace) it does
    inside them. `user` (for root only) is mapped into them, to become."""
    _call("prctl", _PR_SET_DUMPABLE, 1, 0, 0, 0)  # its /proc files are its own to write
    if confinement:
        _enter_namespaces(user)
    if hand_over is not None:
        go_on_in_a_child(hand_over)
    else:
        pid = os.fork()
        if pid:
            _end_as(os.waitpid(pid, 0)[1])
        # unshare's --kill-child: it ends with the process waiting for it
        _call("prctl", _PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if confinement:
        _mounts(confinement)
    if not become_later:
        become(None, confinement is not None)


def become(user: tuple[int, int] | None, confined: bool = True) -> None:
    """The end of a confinement: `user` (if any), and no capability to hold or gain."""
    if confined:
        _drop_capabilities(user)
    else:
        switch_user(user)
        _drop_what_is_held()


def switch_user(user: tuple[int, int] | None) -> None:
    """Become `user` (a uid and gid, no supplementary groups), if one is given."""
    if user:
        os.setgroups([])
        os.setgid(user[1])
        os.setuid(user[0])


def go_on_in_a_child(hand_over) -> None:
    """Go on in a child of this process, whose pid `hand_over(pid)` passes on to the nearest
    subreaper's process; this one exits."""
    pid = os.fork()
    if pid:
        hand_over(pid)
        os._exit(0)


def _end_as(status: int) -> None:
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) != signal.SIGKILL:  # SIGKILL's disposition cannot be set
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


# ---------------------------------------------------------------------------------------------
# Limits, and no new processes: what every confined process gets, namespaces or not
# ---------------------------------------------------------------------------------------------


def apply_limits(limits: dict) -> None:
    """Soft and hard limits (resource module names) the process cannot raise again."""
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


# Linux: the audit arch of each machine the filter below knows, and its syscall numbers
SYSCALLS = {
    "x86_64": (
        0xC000003E,
        {"fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "clone": 56, "clone3": 435},
    ),
    "aarch64": (0xC00000B7, {"execve": 221, "execveat": 281, "clone": 220, "clone3": 435}),
}
CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
BPF_LD_ABS, BPF_JEQ, BPF_JGE, BPF_JSET, BPF_RET = 0x20, 0x15, 0x35, 0x45, 0x06


class SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def no_new_processes_program(arch: int, calls: dict[str, int]) -> list[tuple[int, int, int, int]]:
    """A seccomp filter (classic BPF over struct seccomp_data: nr at 0, arch at 4, the low word
    of the first argument at 16): fork, vfork and exec fail with EPERM, and so does clone unless
    it makes a thread; clone3 fails with ENOSYS, so that threads fall back to clone, whose flags
    a filter can read. Another ABI (i386 through int 0x80, x32) gets EPERM for everything."""
    program: list[tuple] = [
        (BPF_LD_ABS, 0, 0, 4),
        (BPF_JEQ, 0, "deny", arch),
        (BPF_LD_ABS, 0, 0, 0),
        (BPF_JGE, "deny", 0, X32_SYSCALL_BIT),
        *[
            (BPF_JEQ, "deny", 0, calls[n])
            for n in ("fork", "vfork", "execve", "execveat")
            if n in calls
        ],
        (BPF_JEQ, "nosys", 0, calls["clone3"]),
        (BPF_JEQ, "flags", "allow", calls["clone"]),
    ]
    labels = {"flags": len(program)}
    program += [(BPF_LD_ABS, 0, 0, 16), (BPF_JSET, "allow", "deny", CLONE_THREAD)]
    for label, action in [
        ("allow", SECCOMP_RET_ALLOW),
        ("deny", SECCOMP_RET_ERRNO | errno.EPERM),
        ("nosys", SECCOMP_RET_ERRNO | errno.ENOSYS),
    ]:
        labels[label] = len(program)
        program.append((BPF_RET, 0, 0, action))
    return [
        (code, *(labels[j] - i - 1 if isinstance(j, str) else j for j in (jt, jf)), k)
        for i, (code, jt, jf, k) in enumerate(program)
    ]


def forbid_new_processes() -> bool:
    """From here on this process can start no other: whatever the learner's code forks or runs
    fails, so nothing it starts can outlive the process, on any machine, namespaces or not.
    Threads still work. False where the filter cannot be had (not Linux, another machine)."""
    known = SYSCALLS.get(os.uname().machine) if sys.platform == "linux" else None
    if known is None:
        return False
    program = no_new_processes_program(*known)
    filters = (SockFilter * len(program))(*program)
    fprog = SockFprog(len(program), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    return (
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
        and libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0
    )


_available: list[bool] = []


def turned_off() -> bool:
    """DRILLS_NO_NAMESPACES=1: forks run as plain processes, as where a machine allows no
    namespaces (the repo's tests of that fallback ask for it)."""
    return os.environ.get("DRILLS_NO_NAMESPACES") == "1"


def available(root: str) -> bool:
    """Whether this machine lets a process confine itself as above (user namespaces on,
    mounting allowed in them), tried once in a child."""
    if not _available:
        with warnings.catch_warnings():  # the child runs nothing that takes a lock
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            try:
                enter(Confinement(root))
                os._exit(0)
            except BaseException:  # noqa: BLE001 - any failure means no
                os._exit(1)
        _available.append(os.waitpid(pid, 0)[1] == 0)
    return _available[0]
