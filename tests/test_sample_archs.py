"""``sample`` over several archs: one arch solved at a time, names in ``# arch:`` sections that ``check`` reads back.

The draws are split over the archs as n uniform draws over the whole selection fall; each arch's section is
then what ``sample --arch A -n SHARE --seed S`` draws (``explore.arch_shares`` gives the shares and seeds).
"""

from __future__ import annotations

import pytest

from cksolve import explore, query
from cksolve.cli import main
from cksolve.solver.listing import combos

ARCHS = ("gfx942", "gfx950", "gfx1100")


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def _archs():
    return [a for arch in ARCHS for a in ("-a", arch)]


def _sections(text: str) -> dict:
    out: dict = {}
    arch = None
    for line in text.splitlines():
        if line.startswith("# arch: "):
            arch = line[len("# arch: "):]
            assert arch not in out, f"two sections for {arch}"
            out[arch] = []
        else:
            assert arch is not None, f"{line!r} is in no section"
            out[arch].append(line)
    return out


def test_sample_over_several_archs_writes_a_section_per_arch_that_check_reads_back(capsys, tmp_path):
    code, out, err = run(capsys, "sample", "-r", "tiny", *_archs(), "-n", "300", "--seed", "5")
    assert code == 0, err
    sections = _sections(out)
    assert list(sections) == list(ARCHS)  # every selected arch, in the selection's order
    assert sum(map(len, sections.values())) == 300
    path = tmp_path / "drawn.txt"
    path.write_text(out)
    code, checked, err = run(capsys, "check", str(path), "-r", "tiny")
    assert code == 0, (err, [line for line in checked.splitlines() if ": valid, in tiny" not in line][:3])
    assert checked.count(": valid, in tiny") == 300


def test_each_section_is_that_archs_own_sample_of_its_share(capsys):
    code, out, _err = run(capsys, "sample", "-r", "tiny", *_archs(), "-n", "200", "--seed", "9")
    assert code == 0
    rs = query.load_rule_set("tiny")
    shares = explore.arch_shares(rs, query.select(list(ARCHS)), 200, 9)
    assert sum(m for _p, m, _s in shares) == 200
    sections = _sections(out)
    for part, m, seed in shares:
        code, alone, _err = run(capsys, "sample", "-r", "tiny", "-a", part.archs[0], "-n", str(m), "--seed", str(seed))
        assert code == 0 and sections[part.archs[0]] == alone.splitlines(), part.archs[0]
    code, again, _err = run(capsys, "sample", "-r", "tiny", *_archs(), "-n", "200", "--seed", "9")
    assert again == out  # same seed, same bytes


def test_distinct_draws_of_the_whole_selection_are_every_config_once(capsys):
    rs = query.load_rule_set("tiny")
    selection = query.select(list(ARCHS), ["forward"], ["fp16"], ["2"])
    total = sum(query.count_records(rs, selection).values())
    code, out, err = run(capsys, "sample", "-r", "tiny", *_archs(), "--variant", "forward", "--dtype", "fp16",
                         "--ndim", "2", "-n", str(total), "--distinct")
    assert code == 0, err
    code, listed, _err = run(capsys, "enumerate", "-r", "tiny", *_archs(), "--variant", "forward", "--dtype", "fp16",
                             "--ndim", "2")
    drawn, want = _sections(out), _sections(listed)
    assert {a: sorted(v) for a, v in drawn.items()} == {a: sorted(v) for a, v in want.items()}


def test_records_over_several_archs_are_grouped_by_arch(capsys):
    code, out, _err = run(capsys, "sample", "-r", "tiny", *_archs(), "-n", "100", "--seed", "2", "-f", "jsonl")
    assert code == 0
    archs = [line.split('"arch": "')[1].split('"')[0] for line in out.splitlines()]
    assert len(archs) == 100 and archs == sorted(archs, key=ARCHS.index)


def test_only_one_archs_solves_are_held_at_a_time():
    rs = query.load_rule_set("tiny")
    held = []
    for block in explore.sample_arch_lines(rs, query.select(list(ARCHS)), 500, 3):
        held.append({key[0].arch for key in combos._COMBOS})
    assert held and all(len(archs) <= 1 for archs in held), held


def test_too_many_distinct_draws_are_refused_before_any_output(capsys):
    code, out, err = run(capsys, "sample", "-r", "tiny", *_archs(), "-n", str(10 ** 9), "--distinct")
    assert code == 2 and out == "" and "distinct configs asked for" in err


def test_the_decoders_compact_columns_give_back_each_value_with_its_type():
    import numpy as np

    from cksolve.solver.sampling.batch_decode import _Column

    values = [1, True, 1.0, "a", 1, False, 0]
    col = _Column(values)
    got = col[np.arange(len(values))].tolist()
    assert got == values and [type(v) for v in got] == [type(v) for v in values]
    assert col.codes.dtype == np.uint8  # a code a byte, not an 8-byte object pointer
