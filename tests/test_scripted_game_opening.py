"""The opening roll of a scripted game: its winner plays the dice where they were thrown
(USBGF rules: the winner of the opening roll plays the numbers on both dice), so the dice of the
roll's frames and of the play's are the same dice in the same halves."""

from __future__ import annotations

from companion.demo import demo_script
from companion.scripted_game import random_game


def test_the_second_player_plays_the_opening_dice_where_they_lie():
    seen = 0
    for seed in range(1000, 1012):
        script = random_game(seed, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)
        roll = next(e for e in script.expected if e["type"] == "roll" and e.get("opening"))
        play = next(e for e in script.expected if e["type"] == "verdict")
        if roll["dice"][0] == roll["dice"][1]:
            continue  # a tie: rolled again
        if play["player"] != 1:
            continue
        seen += 1
        shown = [s.dice for s in script.scenes if s.dice]
        first = shown[0]
        right, left = first
        assert (right.half, left.half) == ("right", "left")
        assert right.value < left.value  # the second player's die (left) won
        # the play's first scenes show the same two dice as the roll's frame
        n = next(i for i, d in enumerate(shown) if d != first)
        assert n >= 2, "the play's scenes show the opening dice"
    assert seen >= 2  # seeds 1000-1011 hold openings the second player won


def test_the_demo_game_builds_and_opens_with_a_legal_play():
    script = demo_script()
    assert script.expected[0]["type"] == "roll" and script.expected[0]["opening"]
    assert script.expected[1] == {"type": "verdict", "verdict": "legal", "player": 0}
