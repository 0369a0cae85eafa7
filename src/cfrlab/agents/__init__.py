"""Agents: anything that acts from what one seat sees.

``Agent`` is the interface (``cfrlab.games.agent``); ``make_agent(spec, game)`` builds one from
a bot name, a strategy file or ``py:FILE.py:Class`` (``cfrlab.agents.registry``);
``play_match`` and ``crosstable`` take agents or specs. ``TranslatedStrategy`` (``translate``)
plays a no-limit abstract strategy in the real game by action translation
(``cfrlab.agents.translation``).
"""

from cfrlab.agents.matches import crosstable, ncrosstable, play_match, play_nmatch  # noqa: F401
from cfrlab.agents.registry import BOT_NAMES, make_agent  # noqa: F401
from cfrlab.agents.team import UCB1, TeamAgent  # noqa: F401
from cfrlab.agents.translation import TranslatedStrategy, translate  # noqa: F401
from cfrlab.games.agent import Agent, FastPolicy  # noqa: F401
