"""Library entry points read ``rule_set=`` one way (``rulesets.as_rule_set``): a RuleSet, or a rule-set name or
file resolved through the registry; anything else a TypeError naming the parameter. A wrong-typed ``ranking``
value is one clear error too."""

from __future__ import annotations

import importlib
import inspect

import pytest

from cksolve import explore, query
from cksolve.errors import CksolveError
from cksolve.rulesets import as_rule_set, get_rule_set

SPEC = "N=8,C=64,K=64,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1"
#: the faces whose functions take ``rule_set`` (the solver's are its internals, fed by these)
FACES = ("explore", "query", "features", "plan", "audit", "workload", "scoring")


def _entry_points():
    for face in FACES:
        m = importlib.import_module(f"cksolve.{face}")
        for name in m.__all__:
            f = getattr(m, name)
            if inspect.isfunction(f) and "rule_set" in inspect.signature(f).parameters:
                yield f"{face}.{name}", f


def test_every_entry_point_taking_a_rule_set_reads_it_one_way():
    found = dict(_entry_points())
    assert {"explore.search", "query.enumerate_names", "workload.applicable", "scoring.select"} <= set(found)
    loose = sorted(n for n, f in found.items() if not getattr(f, "takes_rule_set", False))
    assert not loose, loose


def test_a_name_means_the_registrys_rule_set():
    by_name = explore.search(SPEC, "gfx942", "fp16", rule_set="tiny", top=3)
    by_object = explore.search(SPEC, "gfx942", "fp16", rule_set=get_rule_set("tiny"), top=3)
    assert [r.name for r in by_name[0]] == [r.name for r in by_object[0]] and by_name[0]
    sel = query.select(archs=["gfx942"], variants=["forward"], dtypes=["fp16"], ndims=[2])
    assert list(query.enumerate_names("tiny", sel)) == list(query.enumerate_names(get_rule_set("tiny"), sel))


@pytest.mark.parametrize("bad", [3, ["tiny"], {"name": "tiny"}])
def test_another_type_is_a_type_error_naming_the_parameter(bad):
    with pytest.raises(TypeError, match=r"rule_set must be a RuleSet or a rule-set name or file \(or None\), not"):
        explore.search(SPEC, "gfx942", "fp16", rule_set=bad)
    sel = query.select(archs=["gfx942"], variants=["forward"], dtypes=["fp16"], ndims=[2])
    with pytest.raises(TypeError, match="rule_set must be a RuleSet or a rule-set name or file, not"):
        list(query.enumerate_names(bad, sel))


def test_an_unknown_name_is_the_registrys_error():
    with pytest.raises(CksolveError, match="unknown rule set 'tny'.*did you mean 'tiny'"):
        as_rule_set("tny")


@pytest.mark.parametrize("ranking,words", [
    ({"device": 3}, "ranking device must be a device name"),
    ({"pool": "many"}, "ranking pool must be an integer"),
    ({"factors": 2.5}, "ranking factors must be a path"),
    ({"rescorer": "model"}, "ranking rescorer must be a scorer"),
])
def test_a_wrong_typed_ranking_value_is_a_clear_error(ranking, words):
    with pytest.raises(CksolveError, match=words):
        explore.search(SPEC, "gfx942", "fp16", rule_set="tiny", ranking=ranking)
