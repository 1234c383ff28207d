"""Few-shot examples for a local judge of user satisfaction, measured on USS ratings.

    python benchmarks/uss_shots.py [--cases 90] [--folds 3] [--out DIR]

Takes `--cases` of the 400 rated USS dialogs (../shared/data/uss, converted as
benchmarks/uss_calibration.py does; an equal share from each rating third, by a
hash of the id, so the subset is the same on every machine), judges them with the
bundled local judge (the `local` extra) and the one-check spec below, then runs
`evaldsl calibrate --shots-for 满意度`: examples chosen on the other folds, each
held-out fold asked again with them. It prints the held-out Spearman and mean
absolute deviation before and after, per fold and on average, and the time spent.
Needs no key; about 10 s a dialog on two cores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from uss_calibration import dialogs, shared_data, to_case, to_label, write_jsonl  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CRITERIA = ("How satisfied is the user with this dialog as a whole: did the system do what "
            "the user asked, correctly and without needless friction?")
SPEC = f"""\
spec "USS satisfaction, one judge"
check 满意度 = judge(scope: dialog, window: {{first: 1, last: 5}}, scale: 10,
  criteria: "{CRITERIA}")
let score = 100 * 满意度.score
metric mean_score = mean(score)
"""


def subset(rows: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """`size` dialogs, a third from each rating third, each third ordered by a hash of
    the id."""
    ranked = sorted(rows, key=lambda d: float(d["overall"]["mean"]))
    thirds = [ranked[i * len(ranked) // 3:(i + 1) * len(ranked) // 3] for i in range(3)]
    keyed = [sorted(t, key=lambda d: hashlib.sha256(d["id"].encode()).hexdigest())
             for t in thirds]
    share = [size // 3 + (1 if i < size % 3 else 0) for i in range(3)]
    return [d for t, k in zip(keyed, share, strict=True) for d in t[:k]]


JUDGE_ENV = {"EVALDSL_JUDGE": "local"}
"""The judge every command asks: the local model, or in --smoke the test server."""


def smoke_judge() -> Any:
    """The project's OpenAI-compatible test server on 127.0.0.1, started, and its settings
    put in `JUDGE_ENV`: a smoke run needs no model."""
    sys.path.insert(0, str(REPO))
    from tests.support import openai_server

    server = openai_server.start()
    JUDGE_ENV.clear()
    JUDGE_ENV.update({"EVALDSL_JUDGE": "openai", "EVALDSL_JUDGE_BASE_URL": server.base_url,
                      "EVALDSL_JUDGE_MODEL": "smoke", "EVALDSL_JUDGE_API_KEY": "smoke"})
    return server


def evaldsl(folder: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **JUDGE_ENV, "EVALDSL_CACHE_DIR": str(folder / "cache")}
    done = subprocess.run([sys.executable, "-m", "evaldsl", *map(str, args)],
                          capture_output=True, text=True, cwd=folder, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"evaldsl {args[0]} failed ({done.returncode}):\n{done.stderr}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=shared_data())
    parser.add_argument("--cases", type=int, default=90)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shots", type=int, default=2)
    parser.add_argument("--shot-chars", type=int, default=1200)
    parser.add_argument("--out", type=Path, default=None, help="keep the files here")
    parser.add_argument("--smoke", action="store_true",
                        help="12 dialogs, 2 folds, judged by the test server on 127.0.0.1")
    args = parser.parse_args()
    if args.smoke and not (args.data / "uss").is_dir():
        print(f"skipped: no USS data under {args.data} (set EVALDSL_SHARED_DATA)")
        return
    server, keep = None, True
    if args.smoke:
        args.cases, args.folds = 12, 2
        server = smoke_judge()
        if args.out is None:  # a smoke run keeps no files
            args.out = Path(tempfile.mkdtemp(prefix="uss-shots-smoke-"))
            keep = False
    try:
        shots(args)
    finally:
        if server is not None:
            server.stop()
            if not keep:
                shutil.rmtree(args.out, ignore_errors=True)


def shots(args: argparse.Namespace) -> None:
    if not (args.data / "uss").is_dir():
        raise SystemExit(f"no USS data under {args.data}: set EVALDSL_SHARED_DATA")
    folder = args.out or Path(tempfile.mkdtemp(prefix="uss-shots-"))
    folder.mkdir(parents=True, exist_ok=True)
    chosen = subset(list(dialogs(args.data)), args.cases)
    write_jsonl(folder / "cases.jsonl", [to_case(d) for d in chosen])
    write_jsonl(folder / "labels.jsonl", [to_label(d) for d in chosen])
    (folder / "judge.eval").write_text(SPEC, encoding="utf-8")
    started = time.monotonic()
    evaldsl(folder, "run", "judge.eval", "cases.jsonl", "--results", "results.jsonl",
            "--overwrite")
    judged = time.monotonic() - started
    done = evaldsl(folder, "calibrate", "results.jsonl", "labels.jsonl", "--spec", "judge.eval",
                   "--score", "mean_score", "--human-scale", "1-5", "--shots-for", "满意度",
                   "--cases", "cases.jsonl", "--folds", str(args.folds), "--seed",
                   str(args.seed), "--shots", str(args.shots), "--shot-chars",
                   str(args.shot_chars), "--format", "json")
    shots = json.loads(done.stdout)["shots"]
    print(json.dumps({"dialogs": len(chosen), "folder": str(folder),
                      "judging_s": round(judged, 1),
                      "shots_s": round(time.monotonic() - started - judged, 1),
                      "cases": shots["cases"], "rejudge_errors": shots["rejudge_errors"],
                      "held_out_mean": shots["held_out_mean"],
                      "per_fold": [{k: f[k] for k in ("n", "before", "after")}
                                   for f in shots["per_fold"]],
                      "proposed": shots["proposed"]}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
