"""The real board photos through ``companion watch --stills``, photo by photo.

Usage (from the project root)::

    python benchmarks/watch_photos.py                       # ../shared/data/boards
    python benchmarks/watch_photos.py --json benchmarks/results/watch_photos.json

Runs ``python -m companion watch --no-web --keyboard off --stills --events-jsonl -
--source DATA/boards/images`` (the board found in each photo: no corners given),
takes the per-photo ``reading`` events (``companion.events.FrameReadingEvent``)
and compares each reading with the photo's hand label (``vision.evaluate``'s
``label_truth`` and ``score``: points right of those not labelled occluded, bar,
dice values). Prints one row per photo and the totals; nothing is tuned here.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _shared_data() -> pathlib.Path:
    """``../shared/data`` beside the clone (or one level up from a worktree), or
    ``$COMPANION_SHARED_DATA``."""
    env = os.environ.get("COMPANION_SHARED_DATA")
    if env:
        return pathlib.Path(env)
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return ROOT.parent / "shared" / "data"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(_shared_data()), help="the shared data folder (default ../shared/data)")
    parser.add_argument("--json", metavar="FILE", help="write the rows and totals here")
    args = parser.parse_args(argv)

    from vision.evaluate import label_truth, score

    boards = pathlib.Path(args.data) / "boards"
    if not (boards / "images").is_dir():
        print(f"no photos at {boards / 'images'}", file=sys.stderr)
        return 2
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", "--stills",
         "--events-jsonl", "-", "--source", str(boards / "images")],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=1800,
    )
    seconds = time.perf_counter() - t
    if r.returncode != 0:
        print(r.stderr[-2000:], file=sys.stderr)
        return 1
    events = [json.loads(line) for line in r.stdout.splitlines()]
    rows = []
    for e in (e for e in events if e["type"] == "reading"):
        label_path = boards / "labels" / (pathlib.Path(e["name"]).stem + ".json")
        row = {"photo": e["name"], "status": e["status"], "detail": e["detail"]}
        if e["observation"] and label_path.is_file():
            label = json.loads(label_path.read_text())
            s = score(e["observation"], label_truth(label))
            row.update(points_right=s["point_ok"], points_scored=s["points"], bar_ok=s["bar_ok"],
                       board_ok=s["board_ok"])
            row["dice_read"] = sorted(d["value"] for d in e["observation"]["dice"])
            row["dice_labelled"] = sorted(d["value"] for d in label.get("dice") or [])
        rows.append(row)
    scored = [r_ for r_ in rows if "points_scored" in r_]
    totals = {
        "photos": len(rows),
        "status": {s: sum(r_["status"] == s for r_ in rows) for s in sorted({r_["status"] for r_ in rows})},
        "points_right": sum(r_["points_right"] for r_ in scored),
        "points_scored": sum(r_["points_scored"] for r_ in scored),
        "boards_all_right": sum(r_["board_ok"] for r_ in scored),
        "dice_equal_label": sum(r_["dice_read"] == r_["dice_labelled"] for r_ in scored),
        "seconds_per_photo": round(seconds / max(1, len(rows)), 2),
    }
    print(f"{'photo':16} {'status':11} {'points':>7} {'bar':>4} {'dice read':>10} {'labelled':>9}  detail")
    for r_ in rows:
        pts = f"{r_['points_right']}/{r_['points_scored']}" if "points_scored" in r_ else "-"
        print(f"{r_['photo']:16} {r_['status']:11} {pts:>7} {('ok' if r_.get('bar_ok') else '-'):>4} "
              f"{str(r_.get('dice_read', '-')):>10} {str(r_.get('dice_labelled', '-')):>9}  {r_['detail']}")
    print(json.dumps(totals, indent=2))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps(
            {"command": " ".join(["python"] + sys.argv), "rows": rows, **totals}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
