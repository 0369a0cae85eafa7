"""The engine: one compiled betting tree x chance model that every kernel walks.

``Engine`` packs the tree and the chance tables once (``core``); the vector walks and their
regret updates are the kernels of ``_kernels``; exact best response, exploitability and
expected value are the same walk with the policy fixed (``values``); ``models`` picks the tree,
chance model and exact evaluator a game uses (``evaluator_for``: 2 or N players alike). Solvers drive the engine; evaluation reads it.
"""

from cfrlab.engine.core import Engine, Layout, get_engine, tree_layout  # noqa: F401
from cfrlab.engine.models import (  # noqa: F401
    build_tree_for,
    describe_state,
    evaluator_for,
    is_lossless,
    load_abstraction,
    model_for_game,
    model_kind,
    row_offsets,
    tree_for,
)
from cfrlab.engine.values import (  # noqa: F401
    Evaluation,
    PairEvaluator,
    best_response,
    best_response_values,
    expected_value,
    exploitability,
    game_value,
    uniform_policy,
)
