"""Whether the performance model's whole-space ``search`` gives picks a CK engineer would trust, for 20
ResNet-50 and 3D layers on gfx942 fp16 and gfx950 bf16: problems answered (status OPTIMAL with K results),
16-wide vectors and 16-wave workgroups among the top K, non-power-of-two tiles among them, and how many of
the K scores are distinct (ties are said by the CLI), with search's time per problem.

The layers: ResNet-50's stem (C=3, 7x7/2, 224x224) and the R3D stem (C=3, 3x7x7, 1x2x2), which CK's hold-out
list has not, then the first 12 ResNet-50-like 2D rows (G=1, C and K among 64..2048, no dilation) and the
first 6 3D rows of CK's hold-out list (``../shared/ck/workloads/validation_holdout.csv``).

    python benchmarks/search_trust.py [--top 5] [--arch gfx942:fp16 --arch gfx950:bf16]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from cksolve import explore
from cksolve.workload import read_problems

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT.parent / "shared" / "ck" / "workloads" / "validation_holdout.csv"
STEMS = ("N=1,C=3,K=64,Hi=224,Wi=224,Y=7,X=7,stride_h=2,stride_w=2,pad_h=3,pad_w=3",
         "N=1,C=3,K=64,Di=16,Hi=112,Wi=112,Z=3,Y=7,X=7,stride_h=2,stride_w=2,pad_d=1,pad_h=3,pad_w=3")
RESNET = (64, 128, 256, 512, 1024, 2048)


def layers() -> list[str]:
    problems = read_problems(HOLDOUT)
    flat = [p for p in problems if p.facts().ndim == 2 and p.G == 1 and p.C in RESNET and p.K in RESNET
            and p.dilation_h == 1 and p.dilation_w == 1][:12]
    deep = [p for p in problems if p.facts().ndim == 3][:6]
    return [*STEMS, *(p.spec() for p in flat + deep)]


def power_of_two(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--arch", action="append", help="ARCH:DTYPE (default gfx942:fp16 and gfx950:bf16)")
    args = parser.parse_args()
    specs = layers()
    for pair in args.arch or ["gfx942:fp16", "gfx950:bf16"]:
        arch, dtype = pair.split(":")
        answered = wide = many = odd = picks = distinct = 0
        times, worst = [], ("", 0.0)
        for spec in specs:
            t = time.perf_counter()
            results, status = explore.search(spec, arch, dtype, None, args.top)
            took = time.perf_counter() - t
            times.append(took)
            worst = max(worst, (spec, took), key=lambda w: w[1])
            if status == "OPTIMAL" and len(results) == args.top:
                answered += 1
            else:
                print(f"  not answered: {spec}: {status} ({len(results)} results)")
            for r in results:
                c = r.config
                picks += 1
                wide += max(c.vector_a, c.vector_b, c.vector_c) >= 16
                many += c.wave_m * c.wave_n * c.wave_k >= 16
                odd += not all(power_of_two(x) for x in (c.tile_m, c.tile_n, c.tile_k))
            distinct += len({r.score for r in results}) == len(results)
        print(f"{arch} {dtype}: answered {answered}/{len(specs)}; in {picks} top-{args.top} picks: "
              f"{wide} with 16-wide vectors, {many} with 16-wave workgroups, {odd} with non-power-of-two tiles; "
              f"{distinct}/{len(specs)} top-{args.top} lists of distinct scores; search {sum(times):.1f} s in all, "
              f"slowest {worst[1]:.1f} s ({worst[0]})")


if __name__ == "__main__":
    main()
