"""The card layer's compiled primitives that other packages' kernels call, by public name:
the hand evaluator's tables and lookups (``_eval_kernels``), hand ranking on boards
(``_board_kernels``, with the ``HandKeys`` bundle its kernels take), canonical hand indexing
and boards up to suit symmetry (``_iso_kernels``) and hand strength (``_strength_kernels``)."""

from cfrlab.cards._board_kernels import (  # noqa: F401
    NO_RANK,
    HandKeys,
    add_card_keys,
    board_completions,
    board_ranks,
    cards_left,
    hand_key_table,
    hand_keys,
    rank_hands,
    rank_of_key,
    showdown_sign,
)
from cfrlab.cards._eval_kernels import (  # noqa: F401
    CARD_BIT,
    CARD_KEY,
    FLUSH_BITS,
    KEY_INIT,
    rank7,
    rank_cards,
)
from cfrlab.cards._eval_kernels import _lookup as lookup  # noqa: F401
from cfrlab.cards._iso_kernels import _index_one as index_one  # noqa: F401
from cfrlab.cards._iso_kernels import _unindex_one as unindex_one  # noqa: F401
from cfrlab.cards._iso_kernels import (  # noqa: F401
    binom,
    board_children,
    multiplicity_into,
    next_combination,
    rest_of,
    sorted_image,
)
from cfrlab.cards._strength_kernels import hand_strength, strength_class, value_bot_states  # noqa: F401
