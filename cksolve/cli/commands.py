"""The command table: every command, the function (or group) that runs it, and whether it takes ``--ck``.

The one place a command is named besides its family module (which registers it on the app with
``@app.command(name)``): the order here is the order ``cksolve --help`` lists the commands, and
resolving an entry imports its family module, which registers every command of that family.
``ck=True``: the command's answers depend on CK's facts or rules, so it takes ``--ck`` and
``--arch-specs`` (added by :func:`cksolve.cli.options.with_ck_options` when its family loads; for a
group, ``group=True``, to each of its commands). tests/test_registries.py holds the table to the commands' options.
"""

from __future__ import annotations

from ..registry import LazyRegistry

__all__ = ["COMMANDS", "CK_COMMANDS", "family"]

COMMANDS = LazyRegistry("command")
for _name, _target, _ck in (
    ("enumerate", "cksolve.cli.listing:enumerate_cmd", True),
    ("count", "cksolve.cli.listing:count_cmd", True),
    ("check", "cksolve.cli.checking:check_cmd", True),
    ("explain", "cksolve.cli.checking:explain_cmd", True),
    ("neighbors", "cksolve.cli.listing:neighbors_cmd", True),
    ("diff", "cksolve.cli.diff:diff_cmd", True),
    ("emit", "cksolve.cli.emit:emit_cmd", True),
    ("cmake-dir", "cksolve.cli.emit:cmake_dir_cmd", False),
    ("rule-sets", "cksolve.cli.listing:rule_sets_cmd", True),
    ("archs", "cksolve.cli.listing:archs_cmd", True),
    ("applicable", "cksolve.cli.workloads:applicable_cmd", True),
    ("coverage", "cksolve.cli.workloads:coverage_cmd", True),
    ("minimize", "cksolve.cli.minimize:minimize_cmd", True),
    ("features", "cksolve.cli.features:features_cmd", True),
    ("pipeline-variants", "cksolve.cli.features:pipeline_variants_cmd", True),
    ("audit", "cksolve.cli.audit:audit_cmd", True),
    ("sample", "cksolve.cli.space:sample_cmd", True),
    ("search", "cksolve.cli.space:search_cmd", True),
    ("report", "cksolve.cli.report:report_cmd", True),
    ("train", "cksolve.cli.select:train_cmd", True),
    ("evaluate", "cksolve.cli.select:evaluate_cmd", True),
    ("select", "cksolve.cli.select:select_cmd", True),
    ("measurements", "cksolve.cli.measurements:measurements_cmd", True),
    ("plan", "cksolve.cli.plan:plan_cmd", True),
    ("calibrate", "cksolve.cli.calibrate:calibrate_cmd", True),
):
    COMMANDS.register(_name, _target, ck=_ck, group=False)
del _name, _target, _ck
# a group (names expand): groups follow the commands in help; ``--ck`` is its commands' options
COMMANDS.register("names", "cksolve.cli.checking:names_app", ck=True, group=True)

#: the commands that take ``--ck`` and ``--arch-specs``
CK_COMMANDS = tuple(name for name in COMMANDS if COMMANDS.info(name)["ck"])


def family(name: str) -> str:
    """The family module (``listing``, ``checking``, ...) that registers command ``name``."""
    return COMMANDS.target(name).partition(":")[0].rpartition(".")[2]
