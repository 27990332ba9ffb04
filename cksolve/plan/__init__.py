"""Benchmark plans: which (problem, kernel) pairs to measure under a GPU budget, in CK's tile-engine formats.

    from cksolve.plan import plan_workload, write_plan, merge_results

    plan, w, _ = plan_workload("workload.csv", rule_set, "gfx950", "bf16", budget=376, seed=0)
    write_plan(plan, w.problems, w.rows, Path("round1"), "gfx950", "bf16", shards=4)
    merge_results(["round1/shard_000/results.csv", ...]).text     # checked against the plan

The method is ``choose``'s docstring; the tile-engine formats are ``tile_engine``'s; the
directory ``layout``'s; the merge's checks ``merge``'s (docs/plan.md shows a whole round).
"""

from .candidates import Candidate, canonical_labels, label_key, named_candidates, rule_set_candidates
from .choose import Hints, Pick, Plan, make_plan, shape_vectors
from .layout import PAIRS_COLUMNS, check_out_dir, write_plan
from .merge import MergeResult, merge_results
from .shards import balance, imbalance
from .workload_plan import Workload, earlier_rounds, plan_workload

__all__ = ["Candidate", "Pick", "Plan", "Hints", "make_plan", "shape_vectors", "rule_set_candidates",
           "named_candidates", "canonical_labels", "label_key", "write_plan", "check_out_dir", "PAIRS_COLUMNS",
           "merge_results", "MergeResult", "balance", "imbalance", "Workload", "plan_workload", "earlier_rounds"]
