"""Speed of `pipeline-variants` with no selection: every arch, every GEMM variant, dtype and ndim.

Target (this branch's own, not an issue's): <= 10 s of CPU in-process, a quarter of the ~40 s the
command took before its witnesses were searched part by part. CPU time (``time.process_time``) is
reported beside wall time because the machine is shared: wall time follows the load. Best of N fresh
processes; the rows are counted and hashed so that a faster run that answers differently shows.

    python benchmarks/bench_pipeline_variants.py [--runs N]
"""

from __future__ import annotations

import argparse

from workload_probe import best

TARGET = 10.0

_PROBE = r"""
import hashlib, json, sys, time
from cksolve.features import pipeline_variants
from cksolve.selection import BUNDLED_ARCHS as ARCHS, DTYPES, NDIMS
t0, c0 = time.perf_counter(), time.process_time()
rows = pipeline_variants(ARCHS, ("forward", "bwd_data", "bwd_weight"), DTYPES, NDIMS)
c1, t1 = time.process_time(), time.perf_counter()
digest = hashlib.sha256(repr(rows).encode()).hexdigest()[:12]
print(json.dumps({"seconds": c1 - c0, "wall": t1 - t0, "rows": len(rows), "sha256": digest}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    r = best(_PROBE, "", args.runs)
    print(f"pipeline-variants, every arch: {r['seconds']:.2f} s CPU ({r['wall']:.2f} s wall) for {r['rows']} "
          f"combinations, sha256 {r['sha256']} (target {TARGET} s, ratio {r['seconds'] / TARGET:.2f}); "
          f"best of {args.runs}")


if __name__ == "__main__":
    main()
