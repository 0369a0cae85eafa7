"""Environments for learning agents (docs/envs.md): every cfrlab game as

* ``PokerEnv`` (``cfrlab.envs.aec``): a PettingZoo AEC environment, 2 to N players;
* ``PokerGymEnv`` (``cfrlab.envs.single``): a Gymnasium environment, one seat against cfrlab agents;
* ``BatchedEnv`` (``cfrlab.envs.batched``): many hands at once on compiled kernels, numpy in and out.

Observations are ``cfrlab.envs.encoding`` tensors (OpenSpiel's information-state tensors for
Kuhn and Leduc), actions ``cfrlab.envs.actions`` ids. PettingZoo and Gymnasium are the
optional ``env`` extra (``pip install cfrlab[env]``); the batched environment needs neither.
Misuse raises one ``CfrlabError`` line (``cfrlab.envs.checks``: ``ResetNeededError``,
``UnknownAgentError``, ``NotAnActionError``, ``HandIndexError``). Names load their module on
first use.
"""

from cfrlab.lazy import lazy_names

_LAZY = {
    "PokerEnv": "cfrlab.envs.aec",
    "env": "cfrlab.envs.aec",
    "PokerGymEnv": "cfrlab.envs.single",
    "BatchedEnv": "cfrlab.envs.batched",
    "ActionSet": "cfrlab.envs.actions",
    "DEFAULT_BETS": "cfrlab.envs.actions",
    "Encoding": "cfrlab.envs.encoding",
    "ResetNeededError": "cfrlab.envs.checks",
    "UnknownAgentError": "cfrlab.envs.checks",
    "NotAnActionError": "cfrlab.envs.checks",
    "HandIndexError": "cfrlab.envs.checks",
}
__all__ = list(_LAZY)


__getattr__, __dir__ = lazy_names("cfrlab.envs", _LAZY, lambda: __all__)
