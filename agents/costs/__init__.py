"""Cost estimation, as pure functions of the observed cost draws: the estimates and bounds of
each set's mean cost (:mod:`.estimates`) and how exploration shares the budget by cost
(:mod:`.allocation`)."""
