"""Selections derived from solved rule sets (``full-tests``, ``tiny``): above the solver, below workloads."""
