"""Many ``random.Random.randrange(n)`` draws at once, the same numbers and the same generator state after.

``randrange(n)`` takes ``k = n.bit_length()`` bits with ``getrandbits(k)`` until
the value is below ``n``; ``getrandbits(k)`` reads ``ceil(k / 32)`` words of the
Mersenne Twister, least significant first, the last one shifted right to keep
its high bits. So the draws are the values below ``n`` among consecutive
candidates read from one stream of words. Here the words come from one
``getrandbits`` call of whole words (the same stream), candidates are formed
and filtered with numpy, and the generator is then set back and moved on by
exactly the words the accepted draws consumed: what follows (the next block)
sees the state the one-at-a-time loop leaves. For ``n`` up to 2^64 (larger
ranges are drawn one at a time by the caller).
"""

from __future__ import annotations

import random

__all__ = ["randbelow_many"]


def randbelow_many(rnd: random.Random, n: int, m: int) -> list[int]:
    """``[rnd.randrange(n) for _ in range(m)]``, vectorised (1 <= n < 2^64)."""
    import numpy as np  # deferred: numpy's import would cost every command's start-up

    k = n.bit_length()
    if m <= 0:
        return []
    if k > 64:  # pragma: no cover - the caller draws these one at a time
        raise ValueError(f"range {n} too large to draw vectorised")
    words = (k - 1) // 32 + 1
    state = rnd.getstate()
    accept = n / (1 << k)  # >= 1/2
    want = m
    got: list = []
    used = 0  # candidates consumed so far
    while True:
        c = int(want / accept * 1.05) + 64
        raw = rnd.getrandbits(32 * words * c).to_bytes(4 * words * c, "little")
        w = np.frombuffer(raw, dtype="<u4").astype(np.uint64).reshape(c, words)
        last = w[:, words - 1] >> np.uint64(32 * words - k)
        cand = last if words == 1 else w[:, 0] | (last << np.uint64(32))
        ok = np.flatnonzero(cand < np.uint64(n))
        if len(ok) >= want:
            got.append(cand[ok[:want]])
            used += int(ok[want - 1]) + 1
            break
        got.append(cand[ok])
        used += c
        want -= len(ok)
    rnd.setstate(state)
    rnd.getrandbits(32 * words * used)  # the words the accepted draws consumed, and no more
    out = got[0] if len(got) == 1 else np.concatenate(got)
    return out.tolist()
