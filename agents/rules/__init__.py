"""The policies' decision rules, as pure functions of bounds, costs and counts: how sets are
chosen (:mod:`.set_selection`) and which variables matter (:mod:`.relevance`)."""
