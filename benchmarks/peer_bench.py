"""evaldsl beside promptfoo and DeepEval on the shared peer workload, in one harness run.

The peer harness (`../shared/bench`, read-only) generates support-agent
conversations with expectations per case, serves a deterministic
OpenAI-compatible mock judge and embedder, runs every tool on the same
workload with the same concurrency and measures wall time, memory, model
calls and agreement with the ground truth. Its contract (benchlib.py) is:
keywords, forbidden words, regex, latency and JSON checks (`det`), plus
embedding similarity and an LLM rubric (`judge`); a case passes iff every
check that applies passes.

This script:

1. copies the harness into WORKDIR/bench (peers installed there by an earlier
   run are kept);
2. puts evaldsl's specs for both variants (benchmarks/peer_specs/) into the
   copy's `specs/`; they read each case's expectations as `case.expect.*`;
3. with `--setup-peers`, installs promptfoo (npm) and DeepEval (PyPI) into the
   copy with the harness's own `setup_peers.sh`;
4. runs the harness with `EVALDSL_CMD` set to `evaldsl run`, and gives its
   evaldsl adapter the two steps the harness already performs for promptfoo.
   Before the timed command, it converts the workload rows
   (`turns`) into evaldsl's case format (OpenAI `messages`). The conversion is
   recorded as the harness's `convert_s` column, not in the tool's wall time.
   After the run, it reads evaldsl's results.jsonl back into the verdict
   contract `{id, pass, checks}`;
5. prints the side-by-side table (also in WORKDIR/out/<run>/summary.md).

    python benchmarks/peer_bench.py --setup-peers --sizes 200 --reps 1
    python benchmarks/peer_bench.py --sizes 200,2000 --reps 3 --tools evaldsl,promptfoo,deepeval
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SPECS = Path(__file__).resolve().parent / "peer_specs"
"""bench_det.eval and bench_judge.eval: the contract of benchlib.py in evaldsl."""
VARIANTS = ("det", "judge")
CHECKS = ("keywords", "forbidden", "regex", "latency", "json", "similarity", "rubric")
"""Check names of the verdict contract; the specs use the same names."""
SKIP = {"node_modules", ".venv", ".tools", "out", "__pycache__", ".deepeval"}
"""Folders never copied from the harness (installed or generated there)."""
EVALDSL_CMD = (
    "EVALDSL_JUDGE_BASE_URL={mock_url} EVALDSL_JUDGE_MODEL=mock-judge "
    "EVALDSL_JUDGE_CONCURRENCY={concurrency} "
    "EVALDSL_EMBED_BASE_URL={mock_url} EVALDSL_EMBED_MODEL=mock-embed "
    "EVALDSL_EMBED_CONCURRENCY={concurrency} EVALDSL_NO_CACHE=1 "
    "{python} -m evaldsl run {spec} {transcripts} --results results.jsonl -o report.json "
    "--concurrency {concurrency}"
)
"""What the harness runs, in the run folder; `{python}` is filled here, the rest by it."""


def copy_harness(source: Path, target: Path) -> None:
    """Copy the harness files, writable, without installed peers or old outputs."""
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d not in SKIP]
        rel = Path(folder).relative_to(source)
        (target / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            destination = target / rel / name
            if destination.exists():
                destination.chmod(0o644)
            shutil.copyfile(Path(folder) / name, destination)
            if os.access(Path(folder) / name, os.X_OK):
                destination.chmod(0o755)


def write_specs(bench: Path) -> None:
    """Replace the harness's draft specs with the real ones."""
    for variant in VARIANTS:
        name = f"bench_{variant}.eval"
        shutil.copyfile(SPECS / name, bench / "specs" / name)


def check_specs() -> None:
    """Refuse to measure specs that evaldsl itself rejects."""
    paths = [str(SPECS / f"bench_{v}.eval") for v in VARIANTS]
    done = subprocess.run([sys.executable, "-m", "evaldsl", "check", *paths],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"evaldsl check rejected the benchmark specs:\n{done.stdout}{done.stderr}")


# ------------------------------------------------------------------ adapter glue


def to_cases(workload: Path, target: Path) -> int:
    """Harness rows -> evaldsl cases: `turns` become OpenAI `messages`; `expect` kept."""
    count = 0
    with open(workload, encoding="utf-8") as rows, open(target, "w", encoding="utf-8") as out:
        for line in rows:
            if not line.strip():
                continue
            row = json.loads(line)
            case = {"id": row["id"], "messages": row["turns"], "topic": row["topic"],
                    "lang": row["lang"], "expect": row["expect"]}
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
            count += 1
    return count


def to_verdict(result: dict[str, Any]) -> dict[str, Any]:
    """One results.jsonl line -> `{id, pass, checks}`; checks not computed are left out."""
    checks: dict[str, bool] = {}
    errors = []
    for name in CHECKS:
        found = result.get("checks", {}).get(name)
        if found is None:
            continue
        if isinstance(found.get("passed"), bool):
            checks[name] = found["passed"]
        else:
            errors.append(f"{name}: {found.get('reason') or found.get('passed')}")
    label = result.get("labels", {}).get("outcome")
    verdict: dict[str, Any] = {"id": result["id"], "pass": label == "pass", "checks": checks}
    if errors or label == "error":
        verdict["error"] = "; ".join(errors) or "the case's outcome is an error"
    return verdict


def verdicts_of(results: Path) -> list[dict[str, Any]]:
    """The verdict contract for every case line (the header line has no `id`)."""
    return [to_verdict(r) for r in read_jsonl(results) if "id" in r]


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as rows:
        for line in rows:
            if line.strip():
                yield json.loads(line)


def install_glue(run_bench: ModuleType) -> None:
    """Give the harness's evaldsl adapter the steps it performs for promptfoo."""
    adapter = run_bench.EvaldslAdapter
    original_prepare = adapter.prepare

    def prepare(self: Any, workload: Path, variant: str, run_dir: Path, ctx: Any) -> Any:
        cases = run_dir / "cases.jsonl"
        to_cases(workload, cases)
        return original_prepare(self, cases, variant, run_dir, ctx)

    def verdicts(self: Any, run_dir: Path) -> list[dict[str, Any]]:
        return verdicts_of(run_dir / "results.jsonl")

    def version(self: Any) -> str:
        from importlib.metadata import version as installed

        return f"evaldsl {installed('evaldsl')} (python {sys.version.split()[0]})"

    adapter.prepare, adapter.verdicts, adapter.version = prepare, verdicts, version


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=REPO.parent / "shared" / "bench")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "evaldsl-peer-bench")
    parser.add_argument("--setup-peers", action="store_true",
                        help="install promptfoo and DeepEval into the copy (npm, PyPI)")
    parser.add_argument("--smoke", action="store_true",
                        help="check the peer specs only: the harness runs peers and datasets")
    args, harness_args = parser.parse_known_args(argv)
    if args.smoke:
        check_specs()
        print("peer specs check clean; the harness itself is not run in --smoke")
        return 0
    if not (args.bench / "run_bench.py").is_file():
        sys.exit(f"no peer harness at {args.bench} (expected run_bench.py)")
    bench = args.workdir / "bench"
    copy_harness(args.bench, bench)
    check_specs()
    write_specs(bench)
    if args.setup_peers:
        subprocess.run(["bash", str(bench / "setup_peers.sh")], check=True)
    os.environ["EVALDSL_CMD"] = EVALDSL_CMD.replace("{python}", sys.executable)
    sys.path.insert(0, str(bench))
    import run_bench  # the copy just written

    install_glue(run_bench)
    if "--out" not in harness_args:
        harness_args += ["--out", str(bench / "out" / time.strftime("bench-%Y%m%d-%H%M%S"))]
    run_bench.main(harness_args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
