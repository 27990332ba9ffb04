"""Where output goes: a device node or FIFO is written into (never replaced), and stdout is written whole.

* ``features --format parquet -o PATH`` writes through a writer that opens files by name; a device or FIFO at
  PATH must be written into, as the text writers do, not replaced by a regular file.
* With ``PYTHONUNBUFFERED=1`` stdout's text layer hands the whole text to one raw write and ignores a short
  count: a disk that fills up mid-write must still be one line and exit 2, never a cut-short output and exit 0.
  A file-size limit (``RLIMIT_FSIZE``) makes the kernel take only part of a write, as a full disk does.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FEATURES = ["features", "--format", "parquet", "-r", "tiny", "-a", "gfx942", "--variant", "forward",
            "--dtype", "fp16", "--ndim", "2", "-o"]


def cksolve(*argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cksolve", *argv], capture_output=True, cwd=ROOT, **kw)


def _parquet_available() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


needs_parquet = pytest.mark.skipif(not _parquet_available(), reason="needs pyarrow")
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="making a private device node (mknod) needs root")


@needs_parquet
@needs_root
def test_parquet_into_a_private_null_device_keeps_the_device(tmp_path):
    node = tmp_path / "nulldev"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    proc = cksolve(*FEATURES, str(node))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode), "the null device was replaced by a regular file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nulldev"], "a temporary was left beside the device"


@needs_parquet
@needs_root
def test_parquet_into_a_private_full_device_is_one_line_and_exit_2(tmp_path):
    node = tmp_path / "fulldev"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    proc = cksolve(*FEATURES, str(node))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"cksolve: error: cannot write {node}: No space left on device\n".encode(), proc.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode), "the full device was replaced by a regular file"


@needs_parquet
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_parquet_into_a_fifo_reaches_its_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = cksolve(*FEATURES, str(fifo))
    reader.join(20)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert got and got[0][:4] == b"PAR1" and got[0][-4:] == b"PAR1", got[:1]


@needs_parquet
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_parquet_into_a_fifo_is_written_through_no_temporary(tmp_path, capsys, monkeypatch):
    """pyarrow writes the FIFO opened for writing (in order, never seeking): no temporary file and no copy."""
    import cksolve.outputs
    from test_cli import run

    def no_temporary(*_):
        raise AssertionError("a temporary file for a FIFO")

    monkeypatch.setattr(cksolve.outputs, "_mkstemp", no_temporary)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        code, _, err = run(capsys, *FEATURES, str(fifo))
    finally:
        try:  # a reader still waiting for a writer can finish
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        reader.join(20)
    assert code == 0, err
    assert got and got[0][:4] == b"PAR1" and got[0][-4:] == b"PAR1", got[:1]


# --- stdout written whole, unbuffered ------------------------------------------------------------------

UNBUFFERED = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")  # no .pyc: the limit hits them too

COMMANDS = {
    "enumerate": ["enumerate", "-r", "default"],
    "enumerate-jsonl": ["enumerate", "-r", "tiny", "--format", "jsonl"],
    "sample": ["sample", "-r", "full", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2",
               "-n", "200"],
    "search": ["search", "--problem", "N=32,C=1024,K=256,Hi=8,Wi=8,Y=1,X=1", "--arch", "gfx942", "--dtype", "fp16",
               "--rule-set", "full", "--top", "100"],
    "explain-json": ["explain", "--format", "json", "--arch", "gfx942",
                     "grouped_conv_fwd_fp16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_32x32x16"],
    "diff": ["diff", "full", "full-tests", "--arch", "gfx942", "--variant", "forward"],
    "audit": ["audit", "--rule-set", "full", "--arch", "gfx942", "--variant", "forward", "--dtype", "fp16"],
    "applicable": ["applicable", "--problem", "N=4,G=4,C=256,K=256,Hi=28,Wi=28,Y=1,X=1", "--rule-set", "full",
                   "--arch", "gfx942", "--dtype", "fp16"],
}


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unbuffered_stdout_on_dev_full_is_one_line(command):
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "cksolve", *COMMANDS[command]], stdout=full,
                              stderr=subprocess.PIPE, cwd=ROOT, env=UNBUFFERED)
    assert proc.returncode == 2 and proc.stderr == b"cksolve: error: cannot write output: No space left on device\n", \
        (command, proc.returncode, proc.stderr)


def _limited(size: int):
    def limit():
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


@pytest.mark.skipif(sys.platform != "linux", reason="needs RLIMIT_FSIZE's short writes (Linux)")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unbuffered_stdout_cut_short_by_the_disk_is_one_line_not_exit_0(tmp_path, command):
    """The first write that crosses the limit is taken in part (as on a disk filling up); the rest must be
    tried, fail, and be reported, never dropped."""
    out = tmp_path / "out"
    with open(out, "wb") as f:
        proc = subprocess.run([sys.executable, "-m", "cksolve", *COMMANDS[command]], stdout=f,
                              stderr=subprocess.PIPE, cwd=ROOT, env=UNBUFFERED, preexec_fn=_limited(256))
    assert proc.returncode == 2, (command, proc.returncode, proc.stderr, out.stat().st_size)
    assert proc.stderr == b"cksolve: error: cannot write output: File too large\n", (command, proc.stderr)


def _refusing_directory(*_args, **_kw):
    raise FileNotFoundError(2, os.strerror(2))  # what /proc answers for a temporary beside /proc/version


@pytest.mark.parametrize("check", [False, True])
def test_a_directory_refusing_the_temporary_is_named_not_the_temporarys_error(tmp_path, monkeypatch, check):
    from cksolve import outputs
    from cksolve.errors import CksolveError

    target = tmp_path / "version"
    target.write_text("kept\n")
    monkeypatch.setattr(outputs, "_mkstemp", _refusing_directory)
    with pytest.raises(CksolveError) as exc:
        outputs.check_writable(target) if check else outputs.write_text_atomic(target, "x")
    assert str(exc.value) == f"cannot write {target}: its directory {tmp_path} takes no new file " \
                             f"(No such file or directory)", str(exc.value)
    assert target.read_text() == "kept\n"


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="needs /proc")
def test_proc_version_names_the_target_and_the_reason():
    proc = cksolve("enumerate", "-r", "tiny", "-a", "gfx950", "-o", "/proc/version")
    assert proc.returncode == 2 and proc.stdout == b""
    err = proc.stderr.decode()
    assert err.startswith("cksolve: error: cannot write /proc/version: ") and err.count("\n") == 1, err
    assert err != "cksolve: error: cannot write /proc/version: No such file or directory\n", err


@pytest.mark.parametrize("argv", [["enumerate", "-r", "tiny", "-a", "gfx950"],
                                  ["features", "-r", "tiny", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                                   "--ndim", "2"],
                                  ["neighbors", "grouped_conv_fwd_fp16_nhwgc_2d_compv1_cshuffle_interwave_128x256x32_"
                                   "2x2x1_32x32x16_vec8_8_8", "-a", "gfx942"]])
def test_output_dash_is_stdout_never_a_file_named_dash(tmp_path, argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    plain = subprocess.run([sys.executable, "-m", "cksolve", *argv], capture_output=True, cwd=tmp_path, env=env)
    dash = subprocess.run([sys.executable, "-m", "cksolve", *argv, "-o", "-"], capture_output=True, cwd=tmp_path,
                          env=env)
    assert plain.returncode == dash.returncode == 0, (argv, dash.stderr)
    assert dash.stdout == plain.stdout and plain.stdout, (argv, dash.stdout[:200])
    assert not (tmp_path / "-").exists(), f"{argv}: -o - wrote a file named -"


def test_emit_out_dash_is_refused_not_a_directory_named_dash(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "cksolve", "emit", "-r", "tiny", "-a", "gfx942", "--variant", "forward",
                           "--dtype", "fp16", "--ndim", "2", "-o", "-"], capture_output=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stdout == b"", proc.stderr
    assert proc.stderr == b"cksolve: error: --out -: emit writes a directory tree, not stdout; give a directory\n"
    assert not (tmp_path / "-").exists()
