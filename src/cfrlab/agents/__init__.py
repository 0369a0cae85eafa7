"""Agents: anything that acts from what one seat sees."""

from cfrlab.agents.base import Agent  # noqa: F401
