"""agents: the explore-then-commit policy of Hoang et al. (2025) and its baselines."""

from agents.base import Agent, BaseAgent
from agents.cvs import EstimatedCostUCBCVSAgent, ETC50Agent, UCBCVSAgent
from agents.etc import ETCAgent
from agents.model_based import ModelBasedAgent
from agents.psq import TSPSQAgent, UCBPSQAgent
from agents.random import RandomAgent
from agents.registry import AGENTS, make_agent

__all__ = [
    "AGENTS",
    "Agent",
    "BaseAgent",
    "ETC50Agent",
    "ETCAgent",
    "EstimatedCostUCBCVSAgent",
    "ModelBasedAgent",
    "RandomAgent",
    "TSPSQAgent",
    "UCBCVSAgent",
    "UCBPSQAgent",
    "make_agent",
]
