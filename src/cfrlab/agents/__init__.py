"""Agents: anything that acts from what one seat sees.

``Agent`` is the interface; ``make_agent(spec, game)`` builds one from a bot name, a strategy
file or ``py:FILE.py:Class`` (``cfrlab.agents.registry``).
"""

from cfrlab.agents.base import Agent  # noqa: F401
from cfrlab.agents.registry import BOT_NAMES, make_agent  # noqa: F401
