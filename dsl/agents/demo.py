"""The built-in `demo` target: a small repair-booking agent over the local model.

`evaldsl run specs/repair_booking.eval scenarios/repair_booking.jsonl --target demo` shows
the whole loop with no key and no server of one's own: the agent is the local model
(`base_url = "local"` of an `openai` target) behind the system prompt below, and what the
command line leaves unnamed, the judge and the simulated users' model, is the local model
too. A `[targets.demo]` table in `evaldsl.toml` replaces it like any other target.
"""

from __future__ import annotations

from typing import Any

DEMO = "demo"
SYSTEM = ("你是家电维修预约客服。先礼貌问候，再依次收集：用户姓名、联系电话、服务地址、故障描述、"
          "预约上门时间。每次只问一项还缺少的信息，回复简短，不超过两句话。信息齐全后复述并确认预约，"
          "并感谢用户。")
TABLE: dict[str, Any] = {
    "kind": "openai", "base_url": "local", "model": "judge", "system": SYSTEM,
    "temperature": 0.0, "timeout": 600.0, "concurrency": 1, "max_steps": 1,
}
"""One conversation at a time and a long timeout: the local model answers one request at a
time on the CPU, as the local judge does (`LOCAL_JUDGE_DEFAULTS`)."""


def is_builtin(name: str, tables: dict[str, Any]) -> bool:
    """Whether `name` is the built-in demo: `demo`, with no `[targets.demo]` of the user's."""
    return name == DEMO and DEMO not in tables
