"""What a plan chooses from: per problem, the kernels that can run it, one per tile-engine label, with the
analytic model's estimate.

CK's tile engine names (and builds) a kernel by its dispatcher short name, the *label*
(``features.dispatcher_name``): kernels of a rule set that differ only in what the label leaves
out (wave split, warp tile, vectors, epilogue) are one measurement to it. And it builds a requested
label as the nearest kernel of CK's ``default`` list (``workload.labels``): labels it resolves to one
kernel are one measurement too, planned once through the canonical label (``canonical_labels``). A
problem's candidates are therefore its applicable kernels (``workload.iter_coverage``, the
``applicable`` answer; implicit-GEMM kernels only, as ``select`` ranks them) grouped by label, each
label represented by its first kernel in canonical order, the canonical labels kept, scored by a
scorer (the analytic one by default: ``scoring.get_scorer("analytic")``, so its calibration is what
the plan sees). ``est_ms`` is the problem's useful FLOPs over that estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..features import config_short, dispatcher_name, read_short
from ..progress import phase
from ..rulesets import takes_rule_set
from ..scoring import get_scorer
from ..space.kinds import GEMM, kernel_kind
from ..space.naming import parse_name
from ..workload import LabelResolver, iter_coverage

__all__ = ["Candidate", "rule_set_candidates", "named_candidates", "label_key", "canonical_labels", "est_ms",
           "useful_flops", "CHUNK"]

#: problems scored in one batch
CHUNK = 64


@dataclass(frozen=True, slots=True)
class Candidate:
    """One label a problem can be measured with: the kernel standing for it, the analytic estimate."""

    kernel: str  # full kernel name (or the label itself when only labels are known)
    label: str  # tile-engine short name
    score: float  # estimated TFLOPS (higher is better)
    est_ms: float  # estimated latency of one launch


def label_key(name: str, config=None) -> tuple | None:
    """What identifies a measurement's kernel to the tile engine: the short name's fields (a missing
    scheduler token reads as intrawave), from a short name, a full name or its config; None for a name of
    neither spelling."""
    if config is not None:
        return tuple(config_short(config))
    fields = read_short(name)
    if fields is not None:
        return tuple(fields)
    try:
        c = parse_name(name)
    except Exception:  # noqa: BLE001 -- any unreadable name is "not a kernel name" here
        return None
    return tuple(config_short(c)) if kernel_kind(getattr(c, "kind", GEMM)) is GEMM else None


def useful_flops(problem) -> float:
    """The problem's useful FLOPs (the count the analytic model divides by its time)."""
    return problem.facts().useful_flops()


def est_ms(useful: float, tflops: float) -> float:
    """The latency (ms) at which ``useful`` FLOPs run at ``tflops``; 0 without an estimate (tflops 0)."""
    return useful / (tflops * 1e12) * 1e3 if tflops > 0 else 0.0


@takes_rule_set
def rule_set_candidates(problems: Sequence, rule_set, arch: str, dtype: str, scorer=None,
                        resolver=None) -> list[list[Candidate]]:
    """Per problem (the list's order), its candidates, best estimate first (ties by label): one per kernel the
    tile engine builds (labels it resolves to one kernel, ``canonical_labels``, are one candidate)."""
    scorer = scorer or get_scorer("analytic")
    resolver = resolver or LabelResolver(arch)
    configs: dict = {}  # name -> (config, label) or None (depthwise)
    pools: dict = {}  # applicable names -> ((label, kernel, config), ...)
    out: list[list[Candidate]] = []
    chunk: list = []

    def pool(kernels: tuple) -> tuple:
        got = pools.get(kernels)
        if got is None:
            seen: dict = {}
            for name in kernels:  # canonical order: the first kernel of a label stands for it
                cl = configs.get(name, False)
                if cl is False:
                    c = parse_name(name)
                    cl = configs[name] = (c, dispatcher_name(c)) if kernel_kind(c.kind) is GEMM else None
                if cl is not None and cl[1] not in seen:
                    seen[cl[1]] = (cl[1], name, cl[0])
            keep = set(canonical_labels(list(seen), resolver))
            got = pools[kernels] = tuple(v for label, v in seen.items() if label in keep)
        return got

    def flush() -> None:
        pairs = [(p, c) for p, labels in chunk for _, _, c in labels]
        scores = scorer.score(pairs, arch, dtype) if pairs else []
        at = 0
        for p, labels in chunk:
            useful = useful_flops(p)
            cands = [Candidate(kernel, label, s, est_ms(useful, s))
                     for (label, kernel, _), s in zip(labels, scores[at:at + len(labels)])]
            at += len(labels)
            cands.sort(key=lambda c: (-c.score, c.label))
            out.append(cands)
        chunk.clear()
        phase(f"ranking {rule_set.name}'s kernels: problem", len(out), len(problems))

    for record in iter_coverage(problems, rule_set, arch, [dtype], with_kernels=True):
        chunk.append((record.problem, pool(record.kernels)))
        if len(chunk) >= CHUNK:
            flush()
    flush()
    return out


def named_candidates(problems: Sequence, labels: Sequence[Sequence[str]], arch: str, dtype: str, scorer=None,
                     resolver=None) -> list[list[Candidate]]:
    """Per problem, one candidate per *kernel* among the given labels (short or full names: a measured file's),
    estimated through that kernel (``workload.labels.LabelResolver``: the tile engine's re-map of a requested
    label to the nearest ``default`` kernel). Labels that resolve to one kernel are one measurement: the
    kernel is planned once, through its canonical label (``canonical_labels``). A label that resolves to no
    kernel stands for itself, estimated 0."""
    scorer = scorer or get_scorer("analytic")
    resolver = resolver or LabelResolver(arch)
    out = []
    for p, names in zip(problems, labels):
        canon = canonical_labels(names, resolver)
        configs = {n: resolver.resolve(n).config for n in canon}
        known = [(n, c) for n, c in configs.items() if c is not None and kernel_kind(c.kind) is GEMM]
        scores = dict(zip((n for n, _ in known), scorer.score([(p, c) for _, c in known], arch, dtype)))
        useful = useful_flops(p)
        got = [Candidate(configs[n].name() if configs[n] is not None else n, n, scores.get(n, 0.0),
                         est_ms(useful, scores.get(n, 0.0))) for n in canon]
        got.sort(key=lambda c: (-c.score, c.label))
        out.append(got)
    return out


def canonical_labels(names: Sequence[str], resolver) -> list[str]:
    """One label per kernel the ``names`` resolve to, in name order: the label that names its kernel exactly
    (a full name, a map's entry, an exact short name) when there is one, else the one whose tile is nearest
    the kernel's (sum of |m|, |n|, |k| differences), then the first by name; labels that resolve to no
    kernel are kept, each its own."""
    best: dict = {}  # kernel name (or the label when unknown) -> (rank, label)
    for n in sorted(set(names)):
        r = resolver.resolve(n)
        key = r.config.name() if r.config is not None else n
        fields = read_short(n)
        far = 0
        if r.how == "nearest" and fields is not None:
            c = r.config
            far = sum(abs(a - b) for a, b in zip(fields[3:6], (c.tile_m, c.tile_n, c.tile_k)))
        rank = (r.how == "nearest", far, n)
        if key not in best or rank < best[key]:
            best[key] = rank
    return sorted(rank[-1] for rank in best.values())
