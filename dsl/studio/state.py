"""What the studio's handlers share, as typed application keys."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from evaldsl.service import LanguageService
from evaldsl.studio.runs import Runs
from evaldsl.webguard import Guard

SPEC_KEY = web.AppKey("spec", Path)
"""The spec file the studio edits and runs."""
SERVICE_KEY = web.AppKey("service", LanguageService)
URI_KEY = web.AppKey("uri", str)
"""The spec's URI in the language service."""
RUNS_KEY = web.AppKey("runs", Runs)
GUARD_KEY = web.AppKey("guard", Guard)
"""The guard of this start: its host names and the token its pages' writes carry."""
