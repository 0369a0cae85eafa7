"""The engine's compiled pieces that solvers and counter-strategies build on, by public name.

The walk itself lives in ``_kernels`` (2 players, vectors over private states) and
``_nplayer_kernels`` (N players, vectors over deals); this module is what other packages may
import of them: the argument bundles, the walks, the regret and average updates and the
node-table column numbers (docs/ENGINE.md describes every layout).
"""

# the board engine's kernels (``_board_kernels``): terminals with card removal, dealing between
# streets and the board storage's regret matching and updates
from cfrlab.engine._board_kernels import (  # noqa: F401
    average_strategy,
    card_lists,
    combine,
    combine_average,
    current_strategy,
    deal_down,
    deal_up,
    disjoint_sum,
    fold_values,
    opponent_node,
    player_node,
    scale_reach,
    showdown_index,
    showdown_sweep,
    showdown_values,
    sum_actions,
)
from cfrlab.engine._board_lanes_kernels import (  # noqa: F401
    GroupSums,
    ReachClasses,
    card_totals,
    fold_lanes,
    group_sums,
    reach_classes,
    showdown_lanes,
    showdown_sweep_lanes,
)
from cfrlab.engine._kernels import (  # noqa: F401
    COL_ACTION,
    COL_DECISION,
    COL_FCHILD,
    COL_KIND,
    COL_NCHILD,
    COL_PARENT,
    COL_PLAYER,
    COL_ROUND,
    CS,
    FIXED_POLICY,
    FULL,
    MODE_BR,
    MODE_CFR,
    MODE_VALUE,
    PCS,
    PcsBlocks,
    SolverTables,
    TerminalOps,
    UpdateRule,
    WalkTree,
    WalkView,
    backward,
    chance_values,
    exact_ops,
    fixed_tables,
    forward,
    full_view,
    normalize_row_range,
    normalize_rows,
    root_value,
    run_iterations,
    run_wide_iterations,
    sum_children,
    terminals,
)
from cfrlab.engine._kernels import _add_average as add_average  # noqa: F401
from cfrlab.engine._kernels import _add_regret as add_regret  # noqa: F401
from cfrlab.engine._kernels import _discounts as discounts  # noqa: F401
from cfrlab.engine._match_kernels import (  # noqa: F401
    limit_match_rows,
    match_row_into,
    regret_match,
    share,
)
from cfrlab.engine._match_kernels import match_rows as regret_match_rows  # noqa: F401
from cfrlab.engine._nplayer_kernels import UpdateRule as NUpdateRule  # noqa: F401
from cfrlab.engine._nplayer_kernels import iterate as nplayer_iterate  # noqa: F401
from cfrlab.engine._nplayer_kernels import terminal_payoffs as nplayer_terminal_payoffs  # noqa: F401
