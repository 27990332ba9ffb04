"""An emit a build can trust: interrupted, killed, raced, misled by symlinks, mounts or a bad manifest.

The interrupt tests run ``cksolve emit`` as a subprocess and signal it at
seeded moments (start-up, rendering, publishing all get hit), then check what
is on disk against a clean emit of the same selection: every file whole (the
old or the new version), no temporary left, and a re-run completing the tree.
The manifest holds modification times, so trees are compared without it.
"""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cksolve.emit import emit, render
from cksolve.emit.writer import MANIFEST
from cksolve.cli.emit import select_for_emit

ROOT = Path(__file__).resolve().parents[1]
#: selection B (the one interrupted) and A (what the directory held before); B adds kernels and drops some of A's
SEL_B = ["--rule-set", "tiny", "--arch", "gfx942"]
SEL_A = ["--rule-set", "tiny", "--arch", "gfx942", "--variant", "forward", "--dtype", "fp16,bf16"]


def _pairs(argv: list[str]):
    opts = dict(zip(argv[::2], argv[1::2]))
    split = lambda k: [opts[k]] if k in opts else None  # noqa: E731
    _, pairs = select_for_emit(opts.get("--rule-set"), None, split("--arch"), split("--variant"),
                               split("--dtype"), None, None)
    return pairs


_CLEAN: dict = {}


def _clean(tmp_path_factory, sel: list[str]) -> dict[str, bytes]:
    key = tuple(sel)
    if key not in _CLEAN:
        out = tmp_path_factory.mktemp("clean") / "out"
        emit(_pairs(sel), out, jobs=1, progress=False)
        _CLEAN[key] = _tree(out)
    return _CLEAN[key]


def _tree(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file (symlinks reported as such), the manifest left out."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = b"<symlink>"
        elif p.is_file() and p.name != MANIFEST:
            out[rel] = p.read_bytes()
    return out


def _leftovers(where: Path) -> list[str]:
    return sorted(str(p) for p in where.rglob("*") if "cksolve-tmp" in p.name)


def _cli(*argv: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "cksolve", "emit", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kw)


def _diff(got: dict, want: dict) -> str:
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    changed = sorted(k for k in set(got) & set(want) if got[k] != want[k])
    return f"missing {missing[:3]} ({len(missing)}), extra {extra[:3]} ({len(extra)}), changed {changed[:3]} ({len(changed)})"


@pytest.mark.slow
@pytest.mark.parametrize("sig, code, seeds", [(signal.SIGINT, 130, range(4)), (signal.SIGTERM, 143, range(2))])
def test_interrupt_leaves_whole_files_and_no_temporaries(tmp_path, tmp_path_factory, sig, code, seeds):
    old, new = _clean(tmp_path_factory, SEL_A), _clean(tmp_path_factory, SEL_B)
    for seed in seeds:
        out = tmp_path / f"out{seed}"
        emit(_pairs(SEL_A), out, jobs=1, progress=False)
        delay = random.Random(seed * 7 + sig).uniform(0.0, 2.5)
        proc = _cli(*SEL_B, "--out", str(out), "-j", "2", start_new_session=True)
        time.sleep(delay)
        os.killpg(proc.pid, sig)  # the whole group, as a terminal's Ctrl-C does
        t = time.monotonic()
        stdout, stderr = proc.communicate(timeout=30)
        took = time.monotonic() - t
        where = f"seed {seed}, {sig.name} after {delay:.2f} s"
        finished = "kernels" in stdout  # the summary: the signal came after the work, as the interpreter exited
        assert proc.returncode in (0, code) or (finished and proc.returncode == -sig), \
            f"{where}: exit {proc.returncode}: {stderr}"
        assert took < 2.0, f"{where}: took {took:.2f} s to stop"
        if proc.returncode == code and not finished:
            lines = stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"cksolve: interrupted by {sig.name}"), f"{where}: {stderr!r}"
        assert _leftovers(tmp_path) == [], where
        tree = _tree(out)
        torn = [rel for rel, data in tree.items() if data != new.get(rel) and data != old.get(rel)]
        assert not torn, f"{where}: files neither old nor new: {torn[:5]}"
        assert set(tree) <= set(old) | set(new), f"{where}: {_diff(tree, new)}"
        # and the next emit completes the tree exactly
        again = _cli(*SEL_B, "--out", str(out), "-j", "2")
        _, err = again.communicate(timeout=120)
        assert again.returncode == 0, err
        assert _tree(out) == new, f"{where}, re-run: {_diff(_tree(out), new)}"


@pytest.mark.slow
def test_sigkill_then_rerun_completes_the_tree(tmp_path, tmp_path_factory):
    new = _clean(tmp_path_factory, SEL_B)
    for seed in range(4):
        out = tmp_path / f"out{seed}"
        if seed % 2:
            emit(_pairs(SEL_A), out, jobs=1, progress=False)  # half of them over an earlier emit
        delay = random.Random(seed).uniform(0.5, 2.5)
        proc = _cli(*SEL_B, "--out", str(out), "-j", "2", start_new_session=True)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)  # the renderers too, as an OOM killer or a CI timeout would
        proc.communicate(timeout=30)
        again = _cli(*SEL_B, "--out", str(out), "-j", "2")
        _, err = again.communicate(timeout=120)
        where = f"seed {seed}, SIGKILL after {delay:.2f} s"
        assert again.returncode == 0, f"{where}: {err}"
        assert _leftovers(tmp_path) == [], where
        assert _tree(out) == new, f"{where}: {_diff(_tree(out), new)}"


def test_a_new_selection_replaces_the_old_one_and_foreign_files_stay(tmp_path, tmp_path_factory, capfd):
    out = tmp_path / "out"
    emit(_pairs(SEL_B), out, jobs=1, progress=False)
    (out / "README.user").write_text("mine")
    s = emit(_pairs(SEL_A), out, jobs=2, progress=False)
    want = dict(_clean(tmp_path_factory, SEL_A), **{"README.user": b"mine"})
    assert _tree(out) == want, _diff(_tree(out), want)
    assert s.removed > 0 and s.foreign == ["README.user"]
    # the headers list exactly the kernels on disk
    on_disk = {p.name[:-4] for p in out.glob("*.cpp")}
    listed = set()
    for inc in out.glob("include_all_*.hpp"):
        listed |= {line.split('"')[1][:-4] for line in inc.read_text().splitlines() if line.startswith("#include \"grouped")}
    assert listed == on_disk
    # reported in one line by the command
    proc = _cli(*SEL_A, "--out", str(out), "-j", "1")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err.count("\n") == 1 and "README.user" in err and "left alone" in err, err


@pytest.mark.slow
@pytest.mark.parametrize("content", [
    b"garbage\x00\xff",
    b'{"format": 4, "digest": "%s", "kernels": 99999999999, "names_bytes": 5, "archs": ["gfx942"]}\n../..',
    b'{"format": 4, "digest": "%s", "kernels": 1, "names_bytes": 8, "archs": ["gfx942"], "globals": null}\n'
    b"../evil\n" + bytes(2 + 48),
    b'{"format": 4, "digest": "%s", "kernels": "1", "names_bytes": [], "archs": {}}\n',
    b"[1, 2, 3]\n",
])
def test_damaged_or_hostile_manifest_is_ignored_with_one_warning(tmp_path, tmp_path_factory, content):
    out = tmp_path / "sub" / "out"
    emit(_pairs(SEL_A), out, jobs=1, progress=False)
    (tmp_path / "sub" / "evil.hpp").write_text("keep me")
    if b"%s" in content:
        content = content.replace(b"%s", render.templates_digest().encode())
    (out / MANIFEST).write_bytes(content)
    proc = _cli(*SEL_A, "--out", str(out), "-j", "1")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cksolve: warning: ignoring the damaged manifest"), err
    assert _tree(out) == _clean(tmp_path_factory, SEL_A)
    assert (tmp_path / "sub" / "evil.hpp").read_text() == "keep me"


def test_symlinks_inside_out_are_replaced_not_followed(tmp_path, tmp_path_factory):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.hpp").write_text("untouched")
    out = tmp_path / "out"
    out.mkdir()
    (out / render.WRAPPER_DIR).symlink_to(outside, target_is_directory=True)
    name = _pairs(SEL_A)[0][1].name()
    (out / f"{name}.hpp").symlink_to(outside / "victim.hpp")
    emit(_pairs(SEL_A), out, jobs=2, progress=False)
    assert sorted(p.name for p in outside.iterdir()) == ["victim.hpp"]
    assert (outside / "victim.hpp").read_text() == "untouched"
    assert _tree(out) == _clean(tmp_path_factory, SEL_A)


@pytest.mark.slow
def test_enumerate_output_replaces_a_symlink(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("untouched")
    link = tmp_path / "names.txt"
    link.symlink_to(target)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "cksolve", "enumerate", "-r", "tiny", "--arch", "gfx942",
                           "--output", str(link)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "untouched" and not link.is_symlink() and link.read_text().count("\n") == 192
    assert sorted(p.name for p in tmp_path.iterdir()) == ["names.txt", "target.txt"]


@pytest.mark.slow
def test_second_emit_waits_for_the_lock(tmp_path, tmp_path_factory):
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a running emit holds it
    try:
        proc = _cli(*SEL_A, "--out", str(out), "-j", "1")
        deadline = time.monotonic() + 60
        err = b""
        os.set_blocking(proc.stderr.fileno(), False)
        while b"waiting" not in err and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            try:
                err += os.read(proc.stderr.fileno(), 4096)
            except BlockingIOError:
                pass
        assert b"waiting for another emit into" in err, err
        assert proc.poll() is None and list(out.iterdir()) == []  # nothing written while it waits
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert _tree(out) == _clean(tmp_path_factory, SEL_A)


@pytest.mark.slow
def test_several_archs_get_one_tree_each(tmp_path, tmp_path_factory):
    (tmp_path / "d").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "d" / "gfx950").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    proc = _cli("--rule-set", "tiny", "--arch", "gfx942,gfx950", "--out", str(tmp_path / "d"), "-j", "2")
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["gfx942", "gfx950"]
    assert _tree(tmp_path / "d" / "gfx942") == _clean(tmp_path_factory, SEL_B)
    assert _tree(tmp_path / "d" / "gfx950") == _clean(tmp_path_factory, ["--rule-set", "tiny", "--arch", "gfx950"])
    assert out.count("\n") == 2
    assert list((tmp_path / "elsewhere").iterdir()) == []  # the symlinked tree was replaced, not followed


@pytest.mark.slow
def test_output_directory_that_is_a_mount_point(tmp_path, tmp_path_factory):
    unshare = shutil.which("unshare")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = (f"mount -t tmpfs none {mnt} && {sys.executable} -m cksolve emit {' '.join(SEL_A)} --out {mnt} -j 2 "
              f"&& tar -C {mnt} -cf {tmp_path / 'tree.tar'} .")
    if unshare is None:
        pytest.skip("no unshare(1) to make a private mount namespace")
    probe = subprocess.run([unshare, "-rm", "sh", "-c", f"mount -t tmpfs none {mnt}"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"mount point case skipped: {probe.stderr.strip()}")
        pytest.skip(f"this machine does not allow a tmpfs mount: {probe.stderr.strip()}")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([unshare, "-rm", "sh", "-c", script], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    shutil.unpack_archive(tmp_path / "tree.tar", tmp_path / "unpacked")
    assert _tree(tmp_path / "unpacked") == _clean(tmp_path_factory, SEL_A)


@pytest.mark.slow
def test_bad_emit_inputs_one_line_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for argv, needle in [
        (SEL_A + ["--out", str(blocker)], "not a directory"),
        (SEL_A + ["--out", str(tmp_path / "o"), "--cmake-list", str(blocker / "x.cmake")], "cannot write"),
        (["--names", str(tmp_path / "missing.txt"), "--arch", "gfx942", "--out", str(tmp_path / "o2")], "missing.txt"),
        (["--rule-set", "tiny", "--arch", "gfx942,gfx9999", "--out", str(tmp_path / "o3")], "gfx9999"),
    ]:
        proc = _cli(*argv)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 2 and err.count("\n") == 1 and needle in err, (argv, err)
        assert "Traceback" not in err
    assert not (tmp_path / "o2").exists() and not (tmp_path / "o3").exists()


@pytest.mark.slow
def test_two_emits_at_once_never_merge(tmp_path, tmp_path_factory):
    out = tmp_path / "out"
    a = _cli(*SEL_A, "--out", str(out), "-j", "1")
    b = _cli(*SEL_B, "--out", str(out), "-j", "1")
    ra, rb = a.communicate(timeout=180), b.communicate(timeout=180)
    assert a.returncode == 0 and b.returncode == 0, (ra[1], rb[1])
    tree = _tree(out)
    clean_a, clean_b = _clean(tmp_path_factory, SEL_A), _clean(tmp_path_factory, SEL_B)
    assert tree in (clean_a, clean_b), f"a merged tree: vs A {_diff(tree, clean_a)}; vs B {_diff(tree, clean_b)}"
    assert _leftovers(tmp_path) == []


# --- outputs that are devices or FIFOs; renderers outliving a killed emit; a manifest that is a directory ---

SEL_SMALL = ["--rule-set", "tiny", "--arch", "gfx942", "--variant", "forward", "--dtype", "fp16"]


def _limit_memory():  # pragma: no cover - runs in the child before exec
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # an emit of tiny needs ~60 MB


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_cmake_list_on_a_device_is_written_into_not_read(tmp_path):
    """``--cmake-list /dev/zero``: the old list is read only when it is a regular file (bounded by the new
    text's size); a device is written into. Reading it took gigabytes and ignored SIGINT/SIGTERM."""
    for device, code, want in (("/dev/zero", 0, ""),
                               ("/dev/full", 2, "cksolve: error: cannot write /dev/full: No space left on device\n")):
        if not Path(device).exists():
            continue
        proc = _cli(*SEL_SMALL, "--out", str(tmp_path / "o"), "--cmake-list", device, preexec_fn=_limit_memory)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert (proc.returncode, err) == (code, want), (device, proc.returncode, err[-500:])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cmake_list_on_a_fifo_is_written_into(tmp_path):
    import threading

    fifo = tmp_path / "list.cmake"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = _cli(*SEL_SMALL, "--out", str(tmp_path / "o"), "--cmake-list", str(fifo))
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        os.close(os.open(fifo, os.O_RDWR))  # release the reader thread
        pytest.fail("emit hung on a FIFO at --cmake-list (it read it before writing)")
    reader.join(10)
    assert proc.returncode == 0 and err == "", err
    assert got and got[0].startswith(b"# Written by `cksolve emit --cmake-list`"), got[:1]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_waiting_on_a_fifo_output_ends_the_emit(tmp_path, sig, code):
    """Nobody reads the FIFO at --cmake-list: the emit waits to write into it, and a signal ends it in 2 s."""
    fifo = tmp_path / "list.cmake"
    os.mkfifo(fifo)
    proc = _cli(*SEL_SMALL, "--out", str(tmp_path / "o"), "--cmake-list", str(fifo), start_new_session=True)
    try:
        summary = proc.stdout.readline()  # the trees are written; the list is next
        assert "kernels" in summary, summary
        time.sleep(0.3)
        os.kill(proc.pid, sig)
        t = time.monotonic()
        _, err = proc.communicate(timeout=10)
        took = time.monotonic() - t
    finally:
        proc.kill()
    assert proc.returncode == code and err == f"cksolve: interrupted by {sig.name}\n", (proc.returncode, err)
    assert took < 2.0, f"took {took:.2f} s to stop"
    assert stat_is_fifo(fifo) and _leftovers(tmp_path) == []


def stat_is_fifo(path: Path) -> bool:
    import stat

    return stat.S_ISFIFO(os.lstat(path).st_mode)


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:  # every member is gone already
        pass


def _survivors(pids: list[int], deadline: float) -> list[int]:
    """The processes of ``pids`` still alive at ``deadline`` (a killed one takes a moment to exit)."""
    while (alive := [p for p in pids if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive


_SLOW_RENDERERS = """
import sys, time
from cksolve.emit import jobs
from cksolve.progress import Progress

class Slow(jobs.Job):
    def run(self, lo, hi):
        time.sleep(60)  # a chunk that takes long: the parent is killed in the middle of it
        return super().run(lo, hi)

print("start", flush=True)
jobs.run(Slow([], sys.argv[1], {}, "tok"), [(0, 0)] * 4, 2, Progress("emit", show=False))
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_renderers_die_with_a_killed_parent(tmp_path):
    """SIGKILL the parent in the middle of a chunk: no renderer survives it by 1 s, and its stderr closes."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_RENDERERS, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        assert proc.stdout.readline() == b"start\n"
        deadline = time.monotonic() + 30
        while len(kids := _children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(kids) == 2, f"renderers not started: {kids}"
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGKILL)
        t = time.monotonic()
        proc.communicate(timeout=5)  # EOF on stdout and stderr: every holder of them is gone
        took = time.monotonic() - t
        survivors = _survivors(kids, t + 1.0)
    finally:
        _kill_group(proc.pid)
    assert not survivors and took < 1.0, f"renderers {survivors} alive; stderr closed after {took:.2f} s"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_killed_emit_leaves_no_renderer_holding_stderr(tmp_path):
    """The command itself: ``$(cksolve emit ...)`` returns within 1 s of the emit's SIGKILL."""
    proc = _cli("--rule-set", "full", "--arch", "gfx942", "--out", str(tmp_path / "o"), "-j", "2",
                start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(kids := _children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert len(kids) == 2, f"renderers not started: {kids}"
        os.kill(proc.pid, signal.SIGKILL)
        t = time.monotonic()
        proc.communicate(timeout=30)
        took = time.monotonic() - t
        survivors = _survivors(kids, t + 1.0)
    finally:
        _kill_group(proc.pid)
    assert not survivors and took < 1.0, f"renderers {survivors} alive; stderr closed after {took:.2f} s"


@pytest.mark.parametrize("kind", ["empty directory", "directory with a file", "fifo"])
def test_a_manifest_that_is_not_a_file_is_ignored_and_every_file_checked(tmp_path, tmp_path_factory, kind):
    out = tmp_path / "out"
    emit(_pairs(SEL_A), out, jobs=1, progress=False)
    victim = next(out.glob("grouped_conv_*.cpp"))
    victim.write_text("damaged")  # a full check must repair it
    (out / MANIFEST).unlink()
    if kind == "fifo":
        os.mkfifo(out / MANIFEST)
    else:
        (out / MANIFEST).mkdir()
        if kind == "directory with a file":
            (out / MANIFEST / "user.txt").write_text("keep me")
    proc = _cli(*SEL_A, "--out", str(out), "-j", "1")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cksolve: warning: ignoring the damaged manifest"), err
    assert _tree(out) == _clean(tmp_path_factory, SEL_A) | ({f"{MANIFEST}/user.txt": b"keep me"} if "with" in kind
                                                            else {}), _diff(_tree(out), _clean(tmp_path_factory, SEL_A))
    proc = _cli(*SEL_A, "--out", str(out), "-j", "1")
    _, err = proc.communicate(timeout=120)
    if "with" in kind:  # nobody's to delete: the tree goes without a manifest, and each emit says so
        assert proc.returncode == 0 and "ignoring the damaged manifest" in err, err
    else:  # replaced by a manifest: the next emit is quiet
        assert proc.returncode == 0 and err == "" and (out / MANIFEST).is_file(), err
