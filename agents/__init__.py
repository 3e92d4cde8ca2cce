"""agents: the explore-then-commit policy of Hoang et al. (2025) and its baselines."""

from agents.base import Agent, BaseAgent
from agents.random import RandomAgent
from agents.registry import AGENTS, make_agent

__all__ = ["AGENTS", "Agent", "BaseAgent", "RandomAgent", "make_agent"]
