"""agents: the explore-then-commit policy of Hoang et al. (2025) and its baselines.

Each agent registers by name in the ``bocvs.agents`` entry-point group (``pyproject.toml``);
:func:`make_agent` builds one by that name or by ``"module:Class"``.
"""

from agents.base import Agent, BaseAgent
from agents.policies.cost_ei import CostCooledEIAgent
from agents.policies.cvs import UCBCVSAgent
from agents.policies.etc import ETCAgent
from agents.policies.model_based import ModelBasedAgent
from agents.policies.psq import UCBPSQAgent
from agents.policies.random import RandomAgent
from agents.policies.sadcbo import SADCBOAgent
from bocvs_env.agent_registration import make_agent, registered_agents

__all__ = [
    "Agent",
    "BaseAgent",
    "CostCooledEIAgent",
    "ETCAgent",
    "ModelBasedAgent",
    "RandomAgent",
    "SADCBOAgent",
    "UCBCVSAgent",
    "UCBPSQAgent",
    "make_agent",
    "registered_agents",
]
