"""The webhook delivers over http(s) to the URL given, and only a 2xx answer there is a
delivery: a redirect is not followed and not counted, a `file:` or `ftp:` URL is refused at
start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaldsl.errors import SinkError
from evaldsl.watch.sinks import WebhookSink
from tests.support import webhook_receiver


class TestRedirect:
    @pytest.mark.parametrize("status", [302, 307])
    def test_a_redirect_is_not_a_delivery(self, status: int) -> None:
        receiver = webhook_receiver.start(redirect=status)
        try:
            sink = WebhookSink(receiver.url, attempts=3, backoff_s=0.01)
            with pytest.raises(SinkError) as caught:
                sink.send({"alert": "too_slow", "value": 0.5})
            assert str(caught.value) == (
                f"the webhook refused the alert after 1 attempts: {status} "
                f"{'Found' if status == 302 else 'Temporary Redirect'}: a redirect is not a "
                "delivery; give the final URL")
            assert receiver.get("/attempts") == 1
            assert receiver.get("/landed") == 0
        finally:
            receiver.stop()


class TestScheme:
    @pytest.mark.parametrize("url", ["file:///tmp/evaldsl-alerts", "ftp://127.0.0.1/alerts"])
    def test_a_url_that_is_not_http_is_refused_at_start(self, kit: Any, tmp_path: Path,
                                                        url: str) -> None:
        spec = tmp_path / "spec.eval"
        spec.write_text(kit.SPEC, encoding="utf-8")
        sessions = tmp_path / "sessions.jsonl"
        sessions.write_text("", encoding="utf-8")
        done = kit.evaldsl("watch", spec, "--state", tmp_path / "state", "--follow", sessions,
                           "--webhook", url, timeout=60)
        assert done.returncode == 2, done.stderr
        assert f"`{url}`" in done.stderr and "http" in done.stderr
        assert not Path("/tmp/evaldsl-alerts").exists()

    def test_the_sink_itself_takes_only_http(self) -> None:
        from evaldsl.errors import ConfigError

        with pytest.raises(ConfigError):
            WebhookSink("file:///etc/passwd")
