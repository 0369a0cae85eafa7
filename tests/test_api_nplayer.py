"""3-player matches from the top-level API: specs become agents, results match the exact
values of the profile (the match engine itself: tests/test_multiplayer_match.py)."""

from __future__ import annotations

import pytest

import cfrlab
from cfrlab.errors import CfrlabError


def test_play_nmatch_from_specs_agrees_with_the_exact_values():
    r = cfrlab.play_nmatch("kuhn-3p", ["always-call", "always-raise", "always-fold"], 20_000, seed=4,
                           exact=True)
    est = r.estimates()
    assert sum(r.exact) == pytest.approx(0.0, abs=1e-12)
    assert abs(sum(e.mean for e in est)) < 1e-9
    for e, x in zip(est, r.exact):
        assert abs(e.mean - x) <= 4 * e.ci95 / 1.96 + 1e-12  # deterministic bots: chance only


def test_a_two_player_call_on_three_players_says_what_to_use():
    with pytest.raises(CfrlabError, match="play_nmatch"):
        cfrlab.play_match("kuhn-3p", "always-call", "random", 10)
    with pytest.raises(CfrlabError, match="ncrosstable"):
        cfrlab.crosstable("kuhn-3p", ["always-call", "random", "always-fold"], 10)


def test_ncrosstable_plays_every_triple_with_spec_labels():
    t = cfrlab.ncrosstable("kuhn-3p", ["always-call", "always-raise", "random", "always-fold"], 500, seed=2)
    assert t["players"] == ["always-call", "always-raise", "random", "always-fold"]
    assert len(t["matches"]) == 4  # C(4, 3)
