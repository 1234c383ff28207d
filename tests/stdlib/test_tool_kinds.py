"""A call's kind in trajectories and counts: an MCP server's tool is not a function.

DeepEval keeps the two apart (`tools_called` for functions, `mcp_tools_called` with
the server for MCP tools), so a metric over one never counts the other; these tests
give that reading in evaldsl's words: `type:` and `server:` on expected calls and on
`tool_called`.
"""

from __future__ import annotations

from typing import Any

import pytest

from evaldsl.cases.case import Case
from tests.stdlib.conftest import Run, call, dialog


def mcp(name: str, server: str = "web", kind: str = "mcp") -> dict[str, Any]:
    return {"type": kind, "server_label": server, "name": name, "arguments": "{}", "id": "m"}


def made(*calls: dict[str, Any]) -> Case:
    return dialog(("user", "find flights"), ("assistant", "", {"tool_calls": list(calls)}),
                  ("assistant", "done"))


class TestTrajectory:
    def test_an_mcp_call_stands_for_an_expected_mcp_call(self, run: Run) -> None:
        r = run("trajectory", made(mcp("search")), expected=[{"name": "search", "type": "mcp"}])
        assert r.passed is True

    def test_a_function_of_the_same_name_does_not(self, run: Run) -> None:
        r = run("trajectory", made(call("search", {})),
                expected=[{"name": "search", "type": "mcp"}])
        assert (r.passed, r.fields["missing"], r.fields["extra"]) == (
            False, ["search"], ["search"])

    def test_the_server_is_compared_when_given(self, run: Run) -> None:
        expected = [{"name": "search", "type": "mcp", "server": "flights"}]
        assert run("trajectory", made(mcp("search", "flights")), expected=expected).passed
        assert not run("trajectory", made(mcp("search", "web")), expected=expected).passed

    def test_a_name_alone_fits_either_kind(self, run: Run) -> None:
        r = run("trajectory", made(mcp("search"), call("book", {})), expected=["search", "book"])
        assert r.passed is True

    def test_the_responses_api_mcp_call_type_reads_as_mcp(self, run: Run) -> None:
        r = run("trajectory", made(mcp("search", kind="mcp_call")),
                expected=[{"name": "search", "type": "mcp"}])
        assert r.passed is True


class TestToolCalled:
    @pytest.mark.parametrize(("kind", "count"), [(None, 2), ("function", 1), ("mcp", 1)])
    def test_counts_by_kind(self, run: Run, kind: str | None, count: int) -> None:
        case = made(mcp("search"), call("search", {}))
        r = run("tool_called", case, name="search", type=kind)
        assert r.fields["count"] == count

    def test_counts_by_server(self, run: Run) -> None:
        case = made(mcp("search", "web"), mcp("search", "flights"))
        assert run("tool_called", case, name="search", server="flights").fields["count"] == 1
