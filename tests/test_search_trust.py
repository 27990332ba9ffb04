"""Whole-space ``search`` by the performance model gives answers a CK engineer would trust: a 3-channel stem is
answered (its vectors must be 1 on the A side: a bound that assumed wider ones left it UNKNOWN), its picks use
no 16-wide vectors and no 16-wave workgroups (priced in ``factors.toml``), a 64-output-channel 1x1 layer does
not rank padded wide tiles first over ``full``, a search stopped by its limits says which, and ties among the
top K are noted. (``benchmarks/search_trust.py`` measures the same over 20 layers and two archs.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cksolve import explore
from cksolve.cli import main
from cksolve.explore import ranked
from cksolve.solver.questions.evaluate import evaluate
from cksolve.workload import parse_problem
from cksolve.workload.explain_problem import runs

STEM = "N=1,C=3,K=64,Hi=224,Wi=224,Y=7,X=7,stride_h=2,stride_w=2,pad_h=3,pad_w=3"  # ResNet-50's conv1
ONE_BY_ONE = "N=32,C=64,K=64,Hi=56,Wi=56,Y=1,X=1"  # 64 output channels: GEMM N = 64


def test_a_three_channel_stem_is_answered_over_the_whole_space():
    results, status = explore.search(STEM, "gfx942", "fp16", None, 5)
    assert status == "OPTIMAL" and len(results) == 5, status
    for r in results:
        c = r.config
        assert evaluate(c, "gfx942").valid and runs(c, "gfx942", parse_problem(STEM)), r.name
        assert max(c.vector_a, c.vector_b, c.vector_c) < 16 and c.wave_m * c.wave_n * c.wave_k < 16, r.name


def test_a_64_channel_1x1_layer_ranks_no_padded_wide_tile_first_over_full():
    from cksolve import query

    results, status = explore.search(ONE_BY_ONE, "gfx942", "fp16", query.load_rule_set("full"), 3)
    assert status == "OPTIMAL" and results, status
    assert results[0].config.tile_n <= 128, [r.tile for r in results]  # 256 or 224 wide: 4x or 3.5x padding


def test_a_search_stopped_by_its_probe_limit_says_so(monkeypatch):
    from cksolve import query

    monkeypatch.setattr(ranked, "PROBE_LIMIT", 0)
    results, status = explore.search(ONE_BY_ONE, "gfx942", "fp16", query.load_rule_set("full"), 2)
    assert not results and status.startswith("UNKNOWN (stopped after 0 solver probes"), status


def test_ties_among_the_top_k_are_noted(capsys):
    tied = [SimpleNamespace(score=s) for s in (3.0, 2.0, 2.0, 1.0, 1.0)]
    note = explore.tie_note(tied)
    assert note.startswith("note: 3 distinct scores among the 5 results; ranks 2-3, 4-5 tie"), note
    assert explore.tie_note([SimpleNamespace(score=s) for s in (3.0, 2.0)]) == ""
    with pytest.raises(SystemExit) as exc:
        main(["search", "-p", ONE_BY_ONE, "-a", "gfx942", "--dtype", "fp16", "--top", "5", "-r", "full",
              "--format", "csv"])
    out, err = capsys.readouterr()
    assert exc.value.code == 0, err
    scores = [line.split(",")[6] for line in out.splitlines()[1:]]
    assert len(scores) == 5 and ("distinct scores among" in err) == (len(set(scores)) < len(scores)), err


def test_picks_of_priced_shapes_say_their_price():
    """A 16-wave workgroup or a 16-wide vector among the picks comes with a note naming the ranks and the price."""
    from cksolve.scoring.factorfile import base_factors

    def result(waves, vector):
        return SimpleNamespace(config=SimpleNamespace(wave_m=waves[0], wave_n=waves[1], wave_k=waves[2],
                                                      vector_a=vector, vector_b=vector, vector_c=vector))

    fx = base_factors()
    notes = explore.cost_notes([result((4, 4, 1), 8), result((2, 2, 1), 16), result((8, 2, 1), 4)], fx, "fp16")
    assert len(notes) == 2 and notes[0].startswith("note: ranks 1, 3: workgroups of more than 8 waves"), notes
    assert f"priced at {fx['waves']['many_waves_rate']:g} of the rate" in notes[0], notes
    assert notes[1].startswith("note: rank 2: vectors wider than 16 bytes"), notes
    assert explore.cost_notes([result((2, 2, 1), 8)], fx, "bf16") == []
