"""`evaldsl studio`: a local web app to write a spec, run it and read its results.

Three pages over one spec file (docs/studio.md): the editor, whose diagnostics,
completions, hovers and quick fixes come from the language service
(`evaldsl.service`) through small JSON endpoints; the run page, which runs the
spec's `example` blocks in the process or the spec over a cases file in an
`evaldsl run` child process, with progress; and the results, the HTML report of
`evaldsl.report` with its case explorer. The review queue is mounted at `/review`
when its app is installed. Bound to 127.0.0.1; the page is hand-written
JavaScript shipped in `static/`, no framework and nothing fetched from elsewhere.
"""

from __future__ import annotations

from evaldsl.studio.app import make_app

__all__ = ["make_app"]
