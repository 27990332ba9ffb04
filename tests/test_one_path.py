"""One ``enumerate`` and one ``count`` in the library: ``query.enumerate_records`` / ``query.count_records``
take ``backend=`` (the direct backend by default) and ``explore.count`` is the same function, not a second
path; a backend's listing and count agree with the default's on a small selection."""

from __future__ import annotations

import pytest

from cksolve import explore, query
from cksolve.errors import CksolveError

SMALL = (["gfx942"], ["forward"], ["fp16"], [2])


def test_explore_count_is_the_query_count():
    assert explore.count is query.count_records
    assert not hasattr(explore, "count_with") and not hasattr(explore, "enumerate_with")


@pytest.mark.parametrize("backend", ["direct", "cpsat"])
def test_a_backend_lists_through_the_one_enumerate(backend):
    rs, selection = query.load_rule_set("tiny"), query.select(*SMALL)
    default = list(query.enumerate_records(rs, selection))
    assert default and list(query.enumerate_records(rs, selection, backend=backend)) == default


def test_a_backend_counts_through_the_one_count():
    rs, selection = query.load_rule_set("tiny"), query.select(*SMALL)
    default = query.count_records(rs, selection)
    assert sum(default.values()) and query.count_records(rs, selection, backend="direct") == default
    assert explore.count(rs, selection, backend="direct") == default
    with pytest.raises(CksolveError, match="cpsat backend cannot count"):
        query.count_records(rs, selection, backend="cpsat")


def test_a_backend_listing_keeps_the_one_limit():
    rs, selection = query.load_rule_set("tiny"), query.select(*SMALL)
    with pytest.raises(CksolveError, match="more than 3 configs"):
        list(query.enumerate_records(rs, selection, 3, backend="cpsat"))
