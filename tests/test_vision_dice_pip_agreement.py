"""A die the classifier turns down is read when its counted pips agree with its most likely
value: :func:`vision.pips.agreed_by_pips` and the free-photo reader."""

from __future__ import annotations

import cv2
import numpy as np

from companion.observation import DieReading
from vision.dice import Candidate, DiceReader, DiceSettings
from vision.dice_data import load_dataset
from vision.evaluate_dice import use_held_out
from vision.pips import agreed_by_pips

from dice_faces import draw_face, table


def _probs(value, p_value, p_not):
    p = np.zeros(8)
    p[value - 1], p[6] = p_value, p_not
    rest = 1.0 - p.sum()
    p[[k for k in range(6) if k != value - 1]] += rest / 5
    return p


def test_a_turned_down_candidate_whose_pips_agree_becomes_a_die():
    img = table(400)
    cv2.rectangle(img, (60, 60), (340, 340), (40, 40, 200), -1)  # a red tray under a white die
    draw_face(img, (200, 200), 60, 4, 1.0)
    cand = Candidate(center=(200.0, 200.0), size=60.0, score=0.8, photo=True)
    got = agreed_by_pips(img, [cand], _probs(4, 0.35, 0.5)[None], [], 0.3, 0.5)
    assert len(got) == 1 and got[0].value == 4 and got[0].confidence == 0.35
    assert got[0].box == (170.0, 170.0, 230.0, 230.0)
    # the pips say 4, the classifier 5: no die
    assert agreed_by_pips(img, [cand], _probs(5, 0.35, 0.5)[None], [], 0.3, 0.5) == []
    # a weak detector peak, or a value the classifier barely considers: no die
    weak = Candidate(center=(200.0, 200.0), size=60.0, score=0.4, photo=True)
    assert agreed_by_pips(img, [weak], _probs(4, 0.35, 0.5)[None], [], 0.3, 0.5) == []
    assert agreed_by_pips(img, [cand], _probs(4, 0.2, 0.6)[None], [], 0.3, 0.5) == []
    # already read: not twice
    read = DieReading(value=4, center=(205.0, 198.0), box=(175.0, 168.0, 235.0, 228.0), confidence=0.9)
    assert agreed_by_pips(img, [cand], _probs(4, 0.35, 0.5)[None], [read], 0.3, 0.5) == []
    # a blank face has no pips to agree
    blank = table(400)
    cv2.rectangle(blank, (170, 170), (230, 230), (232, 236, 238), -1)
    assert agreed_by_pips(blank, [cand], _probs(1, 0.4, 0.5)[None], [], 0.3, 0.5) == []


def test_a_translucent_die_the_classifier_doubts_is_found_on_a_held_out_photo(shared_data):
    # nell-byler IMG_20191208_111316 (fold 0, read by the models that never saw it): a translucent
    # three the classifier doubts (0.36 on its value); its three pips agree
    item = [it for it in load_dataset(shared_data / "dice" / "nell-byler") if it.path.name == "IMG_20191208_111316.jpg"][0]
    assert item.fold() == 0
    img = cv2.imread(str(item.path))
    on = DiceReader(settings=use_held_out(DiceSettings())).read(img)
    off = DiceReader(settings=use_held_out(DiceSettings(pip_agree=None))).read(img)
    new = [d for d in on if d not in off]
    assert len(new) == 1 and new[0].value == 3
    dist = np.hypot(*(item.centers - new[0].center).T)
    k = int(np.argmin(dist))
    size = max(item.boxes[k, 2] - item.boxes[k, 0], item.boxes[k, 3] - item.boxes[k, 1])
    assert dist[k] < 0.5 * size and item.values[k] == 3  # a labelled three, as the evaluation matches
    assert len(on) == len(off) + 1
