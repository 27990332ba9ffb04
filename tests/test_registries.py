"""Every lazy registry (``cksolve.registry.LazyRegistry``) behaves alike: the public names, the commands,
the rule sets, the backends and the scorers. Each entry resolves; the names keep one order in any process;
an unknown name is one line with the closest name; at the command line it exits 2."""

from __future__ import annotations

import sys

import pytest

import cksolve
from cksolve.cli import commands
from cksolve.errors import CksolveError, valid_list
from cksolve.registry import LazyRegistry
from cksolve.rulesets import RULE_SETS
from cksolve.scoring import SCORERS, get_scorer
from cksolve.solver.backends import BACKENDS

#: import path -> the registry there
REGISTRIES = {"cksolve:_HOME": cksolve._HOME, "cksolve.cli.commands:COMMANDS": commands.COMMANDS,
              "cksolve.rulesets.builtin:RULE_SETS": RULE_SETS, "cksolve.solver.backends:BACKENDS": BACKENDS,
              "cksolve.scoring.protocol:SCORERS": SCORERS}
#: a command line naming an unknown entry of each registry that the command line reaches, and its typo
UNKNOWN_AT_CLI = {"cksolve.cli.commands:COMMANDS": (["enumerat"], "enumerat"),
                  "cksolve.rulesets.builtin:RULE_SETS": (["count", "-r", "tny"], "tny"),
                  "cksolve.solver.backends:BACKENDS": (["count", "-r", "default", "--backend", "cpsa"], "cpsa"),
                  "cksolve.scoring.protocol:SCORERS": (["evaluate", "--scorer", "analytc", "--measurements", "m.csv"],
                                                       "analytc")}


@pytest.mark.parametrize("where", sorted(REGISTRIES))
def test_every_entry_resolves_to_what_its_target_names(where):
    registry = REGISTRIES[where]
    assert isinstance(registry, LazyRegistry) and len(registry) > 1
    for name in registry.names():
        target, value = registry.target(name), registry.get(name)
        module, _, attribute = target.partition(":")
        assert module.startswith("cksolve") and value is getattr(sys.modules[module], attribute), (name, target)
        assert registry.get(name) is value  # resolved once


@pytest.mark.parametrize("where", sorted(REGISTRIES))
def test_the_names_keep_registration_order_and_a_replaced_entry_keeps_its_place(where):
    """The order is the one help and error lines show (the commands' is ``--help``'s, the first backend is the
    default): the order the entries are written in, never a hash order."""
    registry = REGISTRIES[where]
    names = registry.names()
    assert names == list(registry) and len(set(names)) == len(names) and names is not registry.names()
    copy = LazyRegistry(registry.kind, {name: registry.target(name) for name in names})
    copy.register(names[0], registry.target(names[-1]))
    copy.register("zz-new", registry.target(names[0]))
    assert copy.names() == [*names, "zz-new"]


@pytest.mark.parametrize("where", sorted(REGISTRIES))
def test_an_unknown_name_is_one_line_with_the_closest_name(where):
    registry = REGISTRIES[where]
    for name in registry.names():
        typo = name[:-1]
        if typo in registry:
            continue
        with pytest.raises(CksolveError) as info:
            registry.get(typo)
        line = str(info.value)
        assert "\n" not in line and line.startswith(f"unknown {registry.kind} {typo!r}; valid: "), line
        assert valid_list(registry.names()) in line and "; did you mean '" in line, line  # a long list shortened
        assert line.rpartition("did you mean ")[2].strip("'?") in registry, line


@pytest.mark.parametrize("where", sorted(UNKNOWN_AT_CLI))
def test_an_unknown_name_at_the_command_line_exits_2_with_one_line(where, capsys, tmp_path, monkeypatch):
    from cksolve.cli import main

    monkeypatch.chdir(tmp_path)
    argv, typo = UNKNOWN_AT_CLI[where]
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{typo!r}" in err, err


def test_an_unknown_public_name_is_an_attribute_error():
    assert not hasattr(cksolve, "nope") and "nope" not in dir(cksolve)
    assert cksolve.parse_name is cksolve._HOME.get("parse_name")


def test_an_entry_is_an_absolute_import_string_or_an_object():
    registry = LazyRegistry("thing")
    with pytest.raises(ValueError, match="absolute"):
        registry.register("relative", ".space.config:KernelConfig")
    registry.register("by-object", LazyRegistry)
    registry.register("by-string", "cksolve.registry:LazyRegistry", note="one line")
    assert registry.names() == ["by-object", "by-string"] and registry.info("by-string") == {"note": "one line"}
    assert registry.get("by-object") is registry.get("by-string") is LazyRegistry
    registry.unregister("by-object")
    assert list(registry) == ["by-string"]


class ConstantScorer:
    """A scorer defined outside ``cksolve.scoring``: every pair scores ``value``."""

    kind = "constant"

    def __init__(self, value: float = 1.0):
        self.value = value

    def score(self, pairs, arch, dtype):
        return [self.value] * len(pairs)

    def describe(self):
        return f"every kernel scores {self.value}"

    def prepare(self, arch, dtype):
        return None


@pytest.mark.parametrize("target", [ConstantScorer, f"{__name__}:ConstantScorer"], ids=["object", "string"])
def test_a_scorer_defined_outside_the_scoring_package_can_be_registered(target):
    SCORERS.register("constant", target)
    try:
        scorer = get_scorer("constant", value=2.5)
        assert isinstance(scorer, ConstantScorer) and scorer.score([(None, None)] * 3, "gfx942", "fp16") == [2.5] * 3
    finally:
        SCORERS.unregister("constant")
    with pytest.raises(CksolveError, match="unknown scorer 'constant'"):
        get_scorer("constant")


def test_the_command_table_says_which_commands_take_ck():
    """Every command the table marks takes ``--ck`` and ``--arch-specs`` (a group: each of its commands); every
    other has neither. The same table is the command order of ``cksolve --help``."""
    import typer

    from cksolve.cli import app, load_families

    load_families()
    root = typer.main.get_command(app)
    assert list(root.commands) == commands.COMMANDS.names()
    for name in commands.COMMANDS:
        command = root.commands[name]
        leaves = list(command.commands.values()) if hasattr(command, "commands") else [command]
        for leaf in leaves:
            options = {o for p in leaf.params for o in p.opts}
            takes = name in commands.CK_COMMANDS
            assert ({"--ck", "--arch-specs"} <= options) is takes and bool({"--ck", "--arch-specs"} & options) is takes, \
                (name, leaf.name, takes)
    assert commands.CK_COMMANDS == tuple(n for n in commands.COMMANDS if commands.COMMANDS.info(n)["ck"])
    assert "cmake-dir" not in commands.CK_COMMANDS and "enumerate" in commands.CK_COMMANDS


@pytest.mark.parametrize("words", [["cmake-dir"], ["count"], ["names", "expand"]], ids=" ".join)
def test_ck_before_the_command_is_moved_to_a_command_that_takes_it_and_refused_by_one_that_does_not(words, capsys):
    """``cksolve --ck REF COMMAND`` is ``cksolve COMMAND --ck REF`` (a group's: after its command's name)."""
    from cksolve.cli import _ck_first, main

    argv = ["--ck", "develop", *words, "--help"]
    takes = words[0] in commands.CK_COMMANDS
    assert _ck_first(argv) == ([*words, "--ck", "develop", "--help"] if takes else argv)
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    assert (info.value.code, "No such option: --ck" in err) == ((0, False) if takes else (2, True)), (out, err)


def test_a_rule_set_registered_from_outside_loads_by_name_and_lists_with_an_empty_line():
    from cksolve.rulesets import RuleSet, get_rule_set, rule_set_description

    class Everything(RuleSet):
        name = "test-everything"

    RULE_SETS.register("test-everything", Everything)
    try:
        rs = get_rule_set("test-everything")
        assert isinstance(rs, Everything) and rs.description == rule_set_description("test-everything") == ""
        assert get_rule_set("default").description == rule_set_description("default") != ""
    finally:
        RULE_SETS.unregister("test-everything")
