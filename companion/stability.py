"""The stability filter: which readings are trustworthy enough to judge.

A reading is used only once the board has been still and unoccluded for a
configurable time (motion from ``vision.motion``, hands and unreadable points
from the reader), and only through votes: each point, the bar, the trays, the
dice and the cube take the value most frames agree on over the recent still
frames. A voted reading whose checker totals are impossible (more than 15 of a
colour, or a visible tray that does not make 15) is *held*: never judged.

The filter emits a stable :class:`~companion.observation.Observation` only when
the voted board differs from the last one it emitted, so the referee sees one
observation per change. Standard library only.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Hashable, Optional

from companion.observation import Counts, Observation, PointReading

CHECKERS_PER_SIDE = 15


@dataclasses.dataclass(frozen=True)
class StabilitySettings:
    """``still_ms``: milliseconds the board must have been still and unoccluded
    (by frame timestamps) before a reading counts. ``window``: the number of
    recent still frames that vote. ``quorum``: fraction (0..1] of the window
    the winning value of every item needs. ``min_frames``: still frames needed
    before the first vote (at most ``window``). ``fast_pickup``: a frame in
    which the dice have just been picked up is judged at once, without waiting
    for still frames, when it proves that nothing else moved (see
    ``companion.session.Session``: the picture equals the last stable one
    everywhere but where the dice lay, and the checkers read equal the stable
    board's)."""

    still_ms: float = 30.0
    window: int = 3
    quorum: float = 0.6
    min_frames: int = 2
    fast_pickup: bool = True

    def __post_init__(self) -> None:
        if self.window < 1 or self.min_frames < 1:
            raise ValueError("window and min_frames must be at least 1")
        if not 0.0 < self.quorum <= 1.0:
            raise ValueError(f"quorum must be in (0, 1], got {self.quorum}")
        if self.still_ms < 0:
            raise ValueError(f"still_ms must not be negative, got {self.still_ms}")


def totals_problem(obs: Observation) -> Optional[str]:
    """Why the checker totals of ``obs`` are impossible, or ``None`` when they are
    possible: each colour has at most 15 checkers on the points and the bar; a
    visible tray makes exactly 15; a point holds a single colour (by construction)."""
    for colour in ("light", "dark"):
        on_board = sum(p.count for p in obs.points if p.colour == colour)
        on_bar = getattr(obs.bar, colour)
        off = getattr(obs.off, colour)
        seen = on_board + on_bar
        if seen > CHECKERS_PER_SIDE:
            return f"{seen} {colour} checkers on the board and the bar (at most {CHECKERS_PER_SIDE})"
        if obs.off_visible and seen + off != CHECKERS_PER_SIDE:
            return f"{seen} {colour} checkers in play and {off} borne off do not make {CHECKERS_PER_SIDE}"
    for p in obs.points:
        if p.count > 0 and p.colour is None:
            return f"point {p.point} has {p.count} checkers of no colour"
    return None


def board_key(obs: Observation) -> tuple:
    """A hashable summary of what the referee uses from ``obs``: points, bar,
    trays, dice (value, cocked, half, owner, sorted) and cube (value, place)."""
    return (
        tuple((p.count, p.colour if p.count else None) for p in obs.points),
        (obs.bar.light, obs.bar.dark),
        (obs.off.light, obs.off.dark),
        _dice_key(obs),
        None if obs.cube is None else (obs.cube.value, obs.cube.place),
    )


def _dice_key(obs: Observation) -> tuple:
    return tuple(sorted((d.value, d.cocked, d.reason or "", d.half or "", d.owner or "") for d in obs.dice))


def _vote(values: list[Hashable]) -> tuple[Hashable, int]:
    counter = collections.Counter(values)
    value, n = counter.most_common(1)[0]
    return value, n


class StabilityFilter:
    """Turns the per-frame readings into stable observations.

    Call :meth:`push` for every frame with its :class:`Observation` (or ``None``
    when the frame could not be read) and the motion flag. It returns a voted
    :class:`Observation` when a new stable board is available, else ``None``.
    :attr:`status` says why nothing was returned (``"moving"``, ``"occluded"``,
    ``"settling"``, ``"undecided"``, ``"held"``, ``"stable"``) and
    :attr:`held_reason` why a reading was held. :attr:`last_disturbed` says
    whether something moved over the board (motion or a hand) between the
    previous stable board and the one just returned: a board that changes
    without anybody touching it is a misreading, not a play.
    """

    def __init__(self, settings: StabilitySettings = StabilitySettings()) -> None:
        self.settings = settings
        self._window: collections.deque[Observation] = collections.deque(maxlen=settings.window)
        self._still_since: Optional[float] = None
        self._last_key: Optional[tuple] = None
        self.status = "settling"
        self.held_reason: Optional[str] = None
        self._disturbed = True
        self.last_disturbed = True

    def reset(self) -> None:
        """Forget the recent frames (the board must settle again); the last
        emitted board is kept so an unchanged board is not emitted twice."""
        self._window.clear()
        self._still_since = None

    def forget_last(self) -> None:
        """Forget the last emitted board, so the next stable board is emitted
        even when unchanged (after an override of the referee's state)."""
        self._last_key = None
        self._disturbed = True

    def push(self, obs: Optional[Observation], moving: bool, timestamp_ms: Optional[float] = None) -> Optional[Observation]:
        """Add one frame's reading; returns the new stable observation or ``None``.

        ``obs``: the frame's reading (``None`` if unreadable); ``moving``: the
        motion detector's verdict for this frame; ``timestamp_ms``: the frame's
        time (defaults to ``obs.timestamp_ms``)."""
        if moving:
            self.status = "moving"
            self.reset()
            self._disturbed = True
            return None
        if obs is None:
            self.status = "unreadable"
            self.reset()
            return None
        ts = obs.timestamp_ms if timestamp_ms is None else timestamp_ms
        if obs.occluded or obs.unreadable_points:
            self.status = "occluded"
            self.reset()
            self._disturbed = True
            return None
        if self._still_since is None:
            self._still_since = ts
        self._window.append(obs)
        s = self.settings
        if len(self._window) < min(s.min_frames, s.window) or ts - self._still_since < s.still_ms:
            self.status = "settling"
            return None
        voted = self._voted()
        if voted is None:
            self.status = "undecided"
            return None
        problem = totals_problem(voted)
        if problem is not None:
            self.status = "held"
            self.held_reason = problem
            return None
        self.held_reason = None
        key = board_key(voted)
        if key == self._last_key:
            self.status = "stable"
            return None
        self._last_key = key
        self.status = "stable"
        self.last_disturbed, self._disturbed = self._disturbed, False
        return voted

    def confirm(self, obs: Observation, timestamp_ms: Optional[float] = None) -> Optional[Observation]:
        """Take ``obs`` as stable at once, without waiting for votes, when the
        caller has proof that its checkers have been still all along (the
        session's dice pick-up: the frame equals the last stable picture
        everywhere but where the dice lay, and its checkers equal the last
        stable board). The same checks as :meth:`push` apply: an occluded,
        partly unreadable or impossible reading is not confirmed (``None``).
        Returns ``obs`` when it differs from the last emitted board, else
        ``None``; the vote window restarts from ``obs``."""
        if obs.occluded or obs.unreadable_points or totals_problem(obs) is not None:
            return None
        ts = obs.timestamp_ms if timestamp_ms is None else timestamp_ms
        self._window.clear()
        self._window.append(obs)
        self._still_since = ts
        self.status = "stable"
        self.held_reason = None
        key = board_key(obs)
        if key == self._last_key:
            return None
        self._last_key = key
        self.last_disturbed, self._disturbed = self._disturbed, False
        return obs

    def _voted(self) -> Optional[Observation]:
        frames = list(self._window)
        need = max(1, -(-int(self.settings.quorum * 1000) * len(frames) // 1000))
        points = []
        for i in range(24):
            keys = [(f.points[i].count, f.points[i].colour if f.points[i].count else None) for f in frames]
            value, n = _vote(keys)
            if n < need:
                return None
            # The probabilities come with the newest frame that read the voted value.
            src = next(f.points[i] for f, k in zip(reversed(frames), reversed(keys)) if k == value)
            points.append(PointReading(i + 1, value[0], value[1], src.distribution, src.hidden))
        bar, n = _vote([(f.bar.light, f.bar.dark) for f in frames])
        if n < need:
            return None
        off, n = _vote([(f.off.light, f.off.dark) for f in frames])
        if n < need:
            return None
        dice, n = _vote([_dice_key(f) for f in frames])
        if n < need:
            return None
        cube, n = _vote([None if f.cube is None else (f.cube.value, f.cube.place) for f in frames])
        if n < need:
            return None
        newest = frames[-1]
        bar_source = next(f for f in reversed(frames) if (f.bar.light, f.bar.dark) == bar)
        dice_source = next(f for f in reversed(frames) if _dice_key(f) == dice)
        cube_source = next(
            f for f in reversed(frames) if (None if f.cube is None else (f.cube.value, f.cube.place)) == cube
        )
        return dataclasses.replace(
            newest,
            points=tuple(points),
            bar=Counts(light=bar[0], dark=bar[1]),
            bar_distribution=bar_source.bar_distribution,
            off=Counts(light=off[0], dark=off[1]),
            dice=dice_source.dice,
            cube=cube_source.cube,
            confidence=min(f.confidence for f in frames),
        )

    def describe(self) -> dict[str, Any]:
        """The filter's state as JSON-ready data (for the dashboard)."""
        return {"status": self.status, "held_reason": self.held_reason, "frames": len(self._window)}
