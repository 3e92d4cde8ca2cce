"""agents: the explore-then-commit policy of Hoang et al. (2025) and its baselines."""

from agents.base import Agent, BaseAgent
from agents.cost_ei import CostCooledEIAgent
from agents.cvs import EstimatedCostUCBCVSAgent, ETC50Agent, UCBCVSAgent
from agents.etc import ETCAgent
from agents.fetc import FETCAgent
from agents.model_based import ModelBasedAgent
from agents.psq import TSPSQAgent, UCBPSQAgent
from agents.random import RandomAgent
from agents.registry import AGENTS, make_agent
from agents.sadcbo import SADCBOAgent

__all__ = [
    "AGENTS",
    "Agent",
    "BaseAgent",
    "CostCooledEIAgent",
    "ETC50Agent",
    "ETCAgent",
    "EstimatedCostUCBCVSAgent",
    "FETCAgent",
    "ModelBasedAgent",
    "RandomAgent",
    "SADCBOAgent",
    "TSPSQAgent",
    "UCBCVSAgent",
    "UCBPSQAgent",
    "make_agent",
]
