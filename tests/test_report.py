"""``cksolve report``: the page's content comes from the faces, it is self-contained, and it renders in a real
browser (headless Chromium: a screenshot that is not blank, the sections in the DOM, no console message)."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import CK

from cksolve import query, workload
from cksolve.cli import main
from cksolve.report import gather, render
from cksolve.report.page import SECTIONS

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = CK / "workloads" / "validation_holdout.csv"
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


class _Page(HTMLParser):
    """Ids, tags and every attribute that could fetch something, of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.ids, self.tags, self.fetches = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k == "id":
                self.ids.append(v)
            if k in ("src", "href", "srcset", "data", "action", "poster") or (k == "style" and "url(" in (v or "")):
                self.fetches.append((tag, k, v))


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """tiny over three archs with the hold-out workload and a minimize for gfx942, through the command."""
    out = tmp_path_factory.mktemp("report") / "report.html"
    with pytest.raises(SystemExit) as exc:
        main(["report", "-r", "tiny", "-a", "gfx942,gfx950,gfx1100", "--problems", str(HOLDOUT),
              "--minimize", "gfx942", "-o", str(out), "--ck", "60b27664"])  # the June answers the tests mean
    assert exc.value.code in (0, None)
    return out


@pytest.mark.ck_data
def test_the_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    parsed = _Page(text)
    assert [i for i in parsed.ids if i in SECTIONS] == list(SECTIONS), parsed.ids
    assert "script" not in parsed.tags and not parsed.fetches, parsed.fetches
    assert "<style>" in text and "@import" not in text and not re.search(r"https?://", text)
    assert parsed.tags.count("svg") == 3  # kernels per variant, per pipeline, coverage
    assert text == render(gather("tiny", query.select(["gfx942", "gfx950", "gfx1100"]), problems=HOLDOUT,
                                 minimize_arch="gfx942")), "the same inputs give the same bytes"


@pytest.mark.ck_data
def test_the_numbers_are_the_commands():
    selection = query.select(["gfx942", "gfx1100"], dtypes=["fp16"])
    rs = query.load_rule_set("tiny")
    data = gather("tiny", selection, problems=HOLDOUT)
    counts = query.count_records(rs, selection)
    for arch in selection.archs:
        for variant in selection.variants:
            want = sum(n for c, n in counts.items() if c.arch == arch and c.variant == variant)
            assert data.by_variant[arch, variant] == want, (arch, variant, data.by_variant[arch, variant], want)
    assert sum(data.by_pipeline.values()) == sum(counts.values())
    for arch in selection.archs:
        records = workload.coverage_records(HOLDOUT, rs, arch, ["fp16"])
        for group in data.groups:
            mine = [r for r in records if f"{r.problem.direction} {r.problem.ndim}d {r.dtype}" == group]
            cell = data.coverage[group, arch]
            assert (cell.covered, cell.total) == (sum(r.applicable > 0 for r in mine), len(mine)), (group, arch)


def test_the_audit_section_names_the_blocking_rules():
    from cksolve import audit

    selection = query.select(["gfx1100"], ["forward"], ["fp16"])
    html = render(gather("default", selection))
    reports, _, _ = audit.audit_selection("default", selection)
    lossy = [c for c in reports[0].combos if c.lossy]
    assert lossy, "default on gfx1100 forward fp16 has empty combinations (docs/audit.md)"
    section = html[html.index('id="audit"'):]
    assert f"empty combinations ({len(lossy)})" in section
    for c in lossy:
        assert ", ".join(c.blocking) in section, c


def test_bad_input_is_one_line(capsys, tmp_path):
    for argv, message in ((["report", "-r", "tiny", "--minimize", "gfx942"], "needs --problems"),
                          (["report", "-r", "tiny", "--problems", str(HOLDOUT), "--minimize", "gfx000"], "unknown arch"),
                          (["report", "-r", "tiny", "-o", str(tmp_path / "no" / "such" / "r.html")], "r.html")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.startswith("cksolve: error:") and message in err, (argv, err)
        assert err.count("\n") == 1, err


# -- in a browser ------------------------------------------------------------------------------------------------

def _chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--no-first-run", "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}",
                           *args, page.as_uri()], capture_output=True, text=True, timeout=180)


def _console(stderr: str) -> list[str]:
    """The page's console messages (errors, warnings, logs) among Chromium's own log lines."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line]


def _looks(png: Path) -> tuple[float, int]:
    """(standard deviation of the grey levels, coloured pixels) of a screenshot."""
    from PIL import Image, ImageStat

    img = Image.open(png).convert("RGB")
    grey = ImageStat.Stat(img.convert("L")).stddev[0]
    data = img.resize((img.width // 4, img.height // 4)).tobytes()
    coloured = sum(1 for i in range(0, len(data), 3) if max(data[i:i + 3]) - min(data[i:i + 3]) > 60)
    return grey, coloured


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install chromium)")


@needs_chromium
@pytest.mark.ck_data
def test_the_page_renders_in_chromium(page, tmp_path):
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, page, "--window-size=1200,2400", f"--screenshot={shot}")
    assert shot.is_file(), proc.stderr[-2000:]
    grey, coloured = _looks(shot)
    assert grey > 20 and coloured > 2000, f"the page looks blank: grey stddev {grey:.1f}, {coloured} coloured pixels"
    assert not _console(proc.stderr), _console(proc.stderr)
    dom = _chromium(tmp_path, page, "--dump-dom")
    ids = _Page(dom.stdout).ids
    assert all(s in ids for s in SECTIONS), f"sections missing from the rendered DOM: {set(SECTIONS) - set(ids)}"
    assert not _console(dom.stderr), _console(dom.stderr)


@needs_chromium
def test_the_browser_checks_can_fail(tmp_path):
    """A blank page and a page with a console error are told apart from a good one."""
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    shot = tmp_path / "blank.png"
    _chromium(tmp_path, blank, "--window-size=800,600", f"--screenshot={shot}")
    grey, coloured = _looks(shot)
    assert grey < 1 and coloured == 0
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><html><body><p>x</p><script>console.error('boom'); no_such();</script></body></html>")
    proc = _chromium(tmp_path, broken, "--dump-dom")
    assert any("boom" in line for line in _console(proc.stderr)), proc.stderr[-2000:]


# --- heat-map labels fit their cells at any size ----------------------------------------------------------


def test_coverage_labels_fit_their_cells_at_a_hundred_thousand_problems():
    """A cell is at least 78 px wide and a character about 7 px: "100000/100000" overflowed it."""
    from cksolve.report.data import CoverageCell, ReportData
    from cksolve.report.page import _coverage, short_count

    selection = query.select(["gfx942", "gfx950"], ["forward"], ["fp16"], ["2"])
    groups = ("forward 2d fp16", "bwd_weight 3d bf16")
    coverage = {(g, a): CoverageCell(99_999 if a == "gfx942" else 100_000, 100_000) for g in groups
                for a in selection.archs}
    data = ReportData("tiny", "t", selection, {}, {}, (), (), {}, problems="p.csv", groups=groups,
                      coverage=coverage, uncovered={})
    svg = _coverage(data)
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "99k/100k" in labels and "100k/100k" in labels, labels
    assert all(7 * len(label) <= 78 - 4 for label in labels if "/" in label), labels
    assert "99999/100000 covered" in svg.replace(",", ""), "the tooltip keeps the exact counts"
    assert [short_count(n) for n in (999, 1000, 1234, 99_999, 1_500_000)] == ["999", "1k", "1.2k", "99k", "1.5M"]
    assert all(len(short_count(n)) <= 4 for n in range(0, 10 ** 15, 7_777_777_777))
