"""The evaluate package's compiled pieces that other packages may use, by public name: the
counter-based random streams of the match engine (splitmix64 of (seed, stream, hand number);
``_match_kernels`` describes them)."""

from cfrlab.evaluate._match_kernels import hand_key, next_uniform  # noqa: F401
