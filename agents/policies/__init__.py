"""The policies, one module each: the base of the GP policies (:mod:`.model_based`), the
explore-then-commit family, its parts and its state (the package :mod:`.etc`), UCB-PSQ and
TS-PSQ (:mod:`.psq`), UCB-CVS and ETC-50 (:mod:`.cvs`), SADCBO (:mod:`.sadcbo`), cost-cooled
EI (:mod:`.cost_ei`), the random baseline (:mod:`.random`) and the Stable-Baselines3 adapter
(:mod:`.sb3`). Each registered agent name points into this package (``pyproject.toml``)."""
