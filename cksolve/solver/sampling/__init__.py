"""Sampling: configs drawn exactly uniformly from solved combinations, by index, without listing them.

Re-export only::

    uniform       sample_solutions/sample_blocks/sample_name_blocks, decode(solutions, index)
    draws         many random.Random.randrange draws at once, the same numbers and generator state after
    batch_decode  decoding many indices at once over numpy arrays (loaded only for a block of draws)

Above the engine (:mod:`cksolve.solver.engine`).
"""

from .uniform import decode, sample_blocks, sample_name_blocks, sample_solutions

__all__ = ["sample_solutions", "sample_blocks", "sample_name_blocks", "decode"]
