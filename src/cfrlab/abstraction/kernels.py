"""The abstraction layer's compiled primitives that other packages' kernels call, by public
name: a player's bucket state of every round for a hand, and of the last round given the
state before it (``_bucket_kernels``; they take a ``StateLookup`` and the ``IndexScratch``
that ``index_scratch`` makes)."""

from cfrlab.abstraction._bucket_kernels import _last_state as last_state  # noqa: F401
from cfrlab.abstraction._bucket_kernels import _player_states as player_states  # noqa: F401
from cfrlab.abstraction._metrics_kernels import index_scratch  # noqa: F401
