"""How a simulated user fails, as the report's `target` section counts it.

The kinds the agents' audit tells apart (`evaldsl.agents.user_brief`) and their words, which
the terminal summary and the HTML report print beside the counts.
"""

from __future__ import annotations

from evaldsl.i18n import N_

EARLY, OFF_GOAL, FORMAT, UNAVAILABLE = "early", "off_goal", "format", "unavailable"
FAILURE_KINDS = (EARLY, OFF_GOAL, FORMAT, UNAVAILABLE)
"""How a simulated user fails: it ended too early, left its goal, broke its format, or its
model did not answer (timeouts, errors): none of them is the agent's doing."""
KIND_WORDS = {EARLY: N_("ended too early"), OFF_GOAL: N_("left its goal"),
              FORMAT: N_("broke its format"), UNAVAILABLE: N_("did not answer")}
