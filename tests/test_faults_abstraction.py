"""Faults of abstraction files (issue 43, item 12): what an abstraction's hash covers.

* Two abstractions with the same bucket maps but other joint tables solve differently (CFR+
  on each gives another average strategy), so their hashes differ; a file whose joint table
  was changed under its header is refused as not matching its hash.
* Files written before the hash covered the joint tables (no ``hash_kind``: the old kind, the
  bucket maps alone, whose formula is written out here) still load, with one line saying so;
  a strategy that recorded such a hash is accepted against the abstraction with one line, and
  a real-game best response's opponent digest (what its results files record) is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache

import numpy as np
import pytest
from test_metrics import holdem

from cfrlab.abstraction.bucketed import BucketedModel
from cfrlab.abstraction.buckets import BucketSpec
from cfrlab.abstraction.cache import array_digest
from cfrlab.errors import CfrlabError, FileMismatchError
from cfrlab.fileio import load_npz, save_npz
from cfrlab.realgame.br import opponent_digest
from cfrlab.realgame.opponents import batch_policy_of
from cfrlab.solvers import make_solver
from cfrlab.strategy import Strategy
from cfrlab.tree import build_tree


@lru_cache(maxsize=1)
def _case():
    game = holdem(4, 3, "0 3 1")
    return game, build_tree(game), BucketedModel.build(game, BucketSpec.make(3, "2-3-2"),
                                                       use_cache=False)


def _other_tables(model) -> BucketedModel:
    """The same bucket maps with other (still valid) joint tables: the showdown table W of
    another deal distribution (halved: ties where there were wins and losses)."""
    return BucketedModel(model.game, model.maps, [f.copy() for f in model._fold],
                         0.5 * model.showdown_matrix(), model.hs_table)


def _old_kind_hash(model) -> str:
    """The hash abstraction files carried before it covered the joint tables (frozen here)."""
    h = hashlib.sha256(b"cfrlab-bucketed-v1\n")
    h.update(model.game.to_text().encode())
    h.update(json.dumps(model.spec.to_dict(), sort_keys=True).encode())
    for a in [*model.maps.state, model.maps.last]:
        h.update(array_digest(np.asarray(a)).encode())
    return h.hexdigest()


def _as_old_file(path, model) -> None:
    """Rewrite an abstraction file as cfrlab wrote it before: no hash_kind, the old hash."""
    header, arrays = load_npz(path, "abstraction")
    del header["hash_kind"]
    header["hash"] = _old_kind_hash(model)
    save_npz(path, header, arrays)


def test_abstractions_that_solve_differently_have_different_hashes(tmp_path):
    game, tree, a = _case()
    b = _other_tables(a)
    policies = []
    for model in (a, b):
        solver = make_solver(tree, model, "cfr+")
        solver.iterate(30)
        policies.append(solver.average_policy())
    assert np.abs(policies[0] - policies[1]).max() > 1e-3  # they solve differently
    assert a.hash != b.hash
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    assert BucketedModel.load(tmp_path / "a.npz").hash == a.hash
    assert BucketedModel.load(tmp_path / "b.npz").hash == b.hash
    # the masses are read too (the engine's reach normalisation, the CLI's info)
    maps = a.maps
    moved = BucketedModel(game, type(maps)(maps.spec, maps.params, maps.state, maps.last,
                                           [m * 1.0 for m in maps.masses[:-1]]
                                           + [np.roll(maps.masses[-1], 1)], maps.hist),
                          a._fold, a.showdown_matrix(), a.hs_table)
    assert moved.hash != a.hash


def test_a_changed_joint_table_does_not_match_the_hash(tmp_path):
    a = _case()[2]
    path = tmp_path / "a.npz"
    a.save(path)
    header, arrays = load_npz(path, "abstraction")
    arrays["showdown"] = 0.5 * arrays["showdown"]
    save_npz(path, header, arrays)
    with pytest.raises(CfrlabError, match="do not match its hash"):
        BucketedModel.load(path)


def test_a_file_with_the_old_kind_of_hash_loads_with_one_line(tmp_path, caplog):
    a = _case()[2]
    assert a.maps_hash == _old_kind_hash(a)
    path = tmp_path / "old.npz"
    a.save(path)
    _as_old_file(path, a)
    with caplog.at_level(logging.WARNING, logger="cfrlab"):
        old = BucketedModel.load(path)
        BucketedModel.load(path)  # said once
    lines = [r.getMessage() for r in caplog.records if "old kind" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0] and str(path) in lines[0]
    assert old.hash == a.hash and old.hash_kind == "old"
    # a changed table in an old file cannot be seen (its hash never covered it) but its maps can
    header, arrays = load_npz(path, "abstraction")
    arrays["last"] = arrays["last"][::-1].copy()
    save_npz(path, header, arrays)
    with pytest.raises(CfrlabError, match="do not match its hash"):
        BucketedModel.load(path)
    header["hash_kind"] = "partial"
    save_npz(path, header, arrays)
    with pytest.raises(CfrlabError, match="hash_kind"):
        BucketedModel.load(path)


def test_a_strategy_with_the_old_kind_of_hash_is_accepted_with_one_line(tmp_path, caplog):
    game, tree, a = _case()
    apath, spath = tmp_path / "abs.npz", tmp_path / "s.npz"
    a.save(apath)
    _as_old_file(apath, a)
    old = BucketedModel.load(apath)
    solver = make_solver(tree, old, "cfr+")
    solver.iterate(5)
    s = Strategy.from_solver(solver, model=old, measure=False)
    s.header["model_hash"] = _old_kind_hash(a)  # as the strategy was written before
    s.save(spath)
    with caplog.at_level(logging.WARNING, logger="cfrlab"):
        back = Strategy.load(spath, model=old)
        beside = Strategy.load(spath)  # the abstraction file named in its header, beside it
    lines = [r.getMessage() for r in caplog.records if str(spath) in r.getMessage()]
    assert len(lines) == 1 and "old kind" in lines[0]
    np.testing.assert_array_equal(back.policy, s.policy)
    assert beside.model.hash == a.hash
    # another abstraction's maps (another bucketing) are still refused
    other = BucketedModel.build(game, BucketSpec.make(3, "2-2-2"), use_cache=False)
    with pytest.raises(FileMismatchError, match="was solved in abstraction"):
        Strategy.load(spath, model=other)
    # the real-game best response reads the maps, not the tables: its files stay valid
    new = Strategy.load(spath, model=_other_tables(a))
    assert opponent_digest(batch_policy_of(back, tree)) == opponent_digest(batch_policy_of(new, tree))


def test_a_new_strategy_names_the_full_hash(tmp_path):
    game, tree, a = _case()
    b = _other_tables(a)
    pol = Strategy.uniform(game, tree=tree, model=a).policy
    s = Strategy.from_policy(game, pol, tree=tree, model=a)
    assert s.header["model_hash"] == a.hash
    s.save(tmp_path / "s.npz")
    with pytest.raises(FileMismatchError, match="was solved in abstraction"):
        Strategy.load(tmp_path / "s.npz", model=b)  # same maps, other tables
