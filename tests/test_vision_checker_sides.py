"""Which set each point's checkers belong to (``vision.learned_checkers.side_probabilities``): the
two sets found in the frame, named by the colours calibration learned."""

from __future__ import annotations

import numpy as np

from vision.learned_checkers import side_probabilities

RED = (82.0, 162.0, 155.0)  # OpenCV Lab of a red checker
NAVY = (33.0, 130.0, 128.0)  # a navy one
#: colours a profile learned from an opening whose navy checkers showed their white star
LEARNED = ((73.0, 173.0, 162.0), (60.5, 130.0, 129.0))


def test_a_frames_own_sets_are_named_by_the_learned_colours():
    # a red checker paler in this frame's light (85, 150, 146) lies between the learned colours,
    # a little nearer the learned dark: the frame's own two sets tell it apart
    rng = np.random.default_rng(1)
    pale = (85.0, 150.0, 146.0)
    colours = np.array([np.array(RED) + rng.normal(0, 1, 3) for _ in range(4)] + [pale]
                       + [np.array(NAVY) + rng.normal(0, 1, 3) for _ in range(5)], np.float32)
    p_learned_only, _ = side_probabilities(np.array([pale], np.float32), np.ones(1, bool), np.ones(1), LEARNED)
    assert p_learned_only[0] < 0.5
    p, centres = side_probabilities(colours, np.ones(10, bool), np.ones(10), LEARNED)
    assert (p[:5] > 0.9).all() and (p[5:] < 0.01).all()
    assert centres[0][1] > centres[1][1]  # the red set (higher a*) is named light, as learned


def test_the_naming_follows_calibration_not_lightness():
    # a set learned as light that is darker in Lab than the other: named as learned
    light, dark = (60.0, 170.0, 160.0), (90.0, 128.0, 128.0)
    rng = np.random.default_rng(2)
    colours = np.array([np.array(light) + rng.normal(0, 2, 3) for _ in range(4)]
                       + [np.array(dark) + rng.normal(0, 2, 3) for _ in range(4)], np.float32)
    p, _ = side_probabilities(colours, np.ones(8, bool), np.ones(8), (light, dark))
    assert (p[:4] > 0.99).all() and (p[4:] < 0.01).all()
    p_frame_only, _ = side_probabilities(colours, np.ones(8, bool), np.ones(8))
    assert (p_frame_only[:4] < 0.01).all()  # without the profile the lighter set is light


def test_one_set_in_view_or_two_clusters_of_one_set_keep_the_learned_colours():
    rng = np.random.default_rng(3)
    navy_plain = [np.array(NAVY) + rng.normal(0, 1, 3) for _ in range(4)]
    navy_star = [np.array((75.0, 130.0, 128.0)) + rng.normal(0, 1, 3) for _ in range(4)]
    colours = np.array(navy_plain + navy_star, np.float32)  # two clusters, both nearer the learned dark
    p, centres = side_probabilities(colours, np.ones(8, bool), np.ones(8), LEARNED)
    assert (p < 0.01).all()
    assert np.allclose(centres[0], LEARNED[0]) and np.allclose(centres[1], LEARNED[1])
