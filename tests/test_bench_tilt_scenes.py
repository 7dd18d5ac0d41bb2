"""benchmarks/tilt_scenes.py: the tilt network's scores on the still scenes of a rendered game."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from tilt_scenes import scene_scores, summary  # noqa: E402

from vision.cocked import MODELS, TILT_THRESHOLD  # noqa: E402


def test_a_validation_game_of_travel_dice_calls_its_cocked_roll_and_no_flat_one():
    # Validation game 12 (seed 1012, the tournament board, travel dice of 0.3 of a checker): its
    # cocked roll (a 4 leaning 30 degrees, about 14 pixels wide) scored 0.75 with a tilt network of
    # an earlier recipe, which took the roll as flat; the shipped network calls it, and none of the
    # game's flat scenes. The shipped folder named again as another tilt network
    # (--tilt-models) scores every scene as the shipped network does.
    scenes = scene_scores(12, 0.3, tilt_models=[MODELS])
    cocked = [s for s in scenes if s["cocked"]]
    flat = [s for s in scenes if not s["cocked"]]
    assert len(cocked) == 1 and len(flat) >= 10
    assert all(s["dice_read"] == 2 for s in cocked)
    assert cocked[0]["score"] > TILT_THRESHOLD
    assert max(s["score"] for s in flat) < TILT_THRESHOLD
    (row,) = summary(scenes, [TILT_THRESHOLD])
    assert (row["caught"], row["cocked"], row["flat_called"], row["flat"]) == (1, 1, 0, len(flat))
    assert all(s["scores"] == {str(MODELS): s["score"]} for s in scenes)
    assert summary(scenes, [0.5, TILT_THRESHOLD], str(MODELS)) == summary(scenes, [0.5, TILT_THRESHOLD])
