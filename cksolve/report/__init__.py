"""``cksolve report``: one self-contained HTML page about a rule set (and a workload) to look at.

Re-export only::

    from cksolve import query, report
    data = report.gather("tiny", query.select(["gfx942", "gfx950"]), problems="problems.csv", minimize_arch="gfx942")
    html = report.render(data)        # one page: inline CSS and SVG, no script, nothing fetched

The page is built from the faces (``cksolve.query``, ``cksolve.audit``,
``cksolve.workload``): it shows what the commands compute, never a number of
its own.
"""

from .data import ReportData, gather
from .page import render

__all__ = ["gather", "render", "ReportData"]
