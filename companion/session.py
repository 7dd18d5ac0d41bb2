"""The running referee session: frames in, verdicts out; the SessionApi for outlets.

:class:`Session` ties one frame pipeline together (motion -> reader ->
stability filter -> referee) around one bus and one match, and implements
:class:`companion.session_api.SessionApi` for the dashboard and the keyboard.
Frames come from :meth:`process_frame` (called by :meth:`run` with a
``vision.sources.FrameGrabber``); everything the referee decides goes on the bus.

Calls from other threads (dashboard, keyboard) and the frame loop are
serialised by one lock; each state change is a match action, which a
``companion.match_log.LoggedMatch`` commits to SQLite before returning.
"""

from __future__ import annotations

import dataclasses
import pathlib
import threading
import time
from typing import Any, Callable, Optional

from companion.bus import EventBus
from companion.events import BoardStatusEvent, FrameReadingEvent, ObservationEvent, SourceStatusEvent
from companion.observation import Observation
from companion.referee import Referee, RefereeError, RefereeSettings
from companion.stability import StabilityFilter, StabilitySettings, board_key

#: Fraction of the motion detector's pixels that may change outside the dice
#: boxes in a dice pick-up frame (noise, JPEG artefacts; a hand is far more).
PICKUP_STRAY_FRACTION = 0.0005

Reader = Callable[[Any], Observation]


def make_match(settings: dict[str, Any], log_path: Optional[str] = None):
    """A new :class:`companion.match.Match` (a ``LoggedMatch`` committed to
    SQLite at ``log_path`` when given; an existing log there is resumed when it
    holds the same match) from the ``new_match`` settings. Raises ``ValueError``
    for bad settings."""
    from companion.match import Match, MatchRules

    length = settings.get("match_length", 0)
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise ValueError(f"match_length must be a whole number >= 0, got {length!r}")
    players = settings.get("players") or ("Player 0", "Player 1")
    if len(players) != 2 or not all(isinstance(p, str) and p.strip() for p in players):
        raise ValueError("players must be two names")
    try:
        rules = MatchRules(
            jacoby=bool(settings.get("jacoby", False)),
            beavers=int(settings.get("beavers", 0)),
            automatic_doubles=int(settings.get("automatic_doubles", 0)),
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad match rules: {exc}") from None
    if log_path is None:
        return Match(length, players=tuple(players), rules=rules)
    from companion.match_log import LoggedMatch

    config = Match(length, players=tuple(players), rules=rules).config()
    return LoggedMatch.open(log_path, config)


def _changes_under_dice(before: Observation, after: Observation, places: dict) -> bool:
    """Whether every point read differently in ``after`` than in ``before`` changed only at
    checker places a die lies over (``places``: point -> places, 0 at the base, as
    ``vision.point_crops.places_under`` gives them): a count that grew or shrank changed the
    places between the two counts, a colour that changed every place of the point. A change
    past a line's last place (stacks of six and more overlap) and a point read as hidden count
    wherever on the point the die lies."""
    from vision.point_crops import LINE_PLACES

    hidden = set(after.unreadable_points)
    for a, b in zip(before.points, after.points):
        if (a.count, a.colour) == (b.count, b.colour) or b.point in hidden:
            continue
        lo = 0 if a.colour != b.colour and a.count and b.count else min(a.count, b.count)
        changed = set(range(lo, max(a.count, b.count)))
        if any(k >= LINE_PLACES for k in changed):
            continue
        if not changed <= places.get(b.point, frozenset()):
            return False
    return True


class Session:
    """One running referee session.

    ``bus``: the event bus. ``reader``: image ((H, W, 3) uint8 BGR) ->
    :class:`Observation` (``vision.reader``), or ``None`` when only
    observations are fed (:meth:`feed_observation`). ``match_settings``: as
    :meth:`new_match`. ``stability``: :class:`StabilitySettings`.
    ``match_log``: SQLite path for the match log, or ``None``. ``motion``:
    read only still frames (frame differencing); off for a folder of unrelated
    photos. ``resize_to_first``: a frame whose size differs from the first
    frame's is resized to it (a fixed camera with a fixed calibration); off
    when the reader registers the board per frame size. ``report_every_frame``:
    publish the board's status for every frame, not only on change, and one
    ``FrameReadingEvent`` per frame (a folder of unrelated photos).

    The reader may offer optional hooks (``companion.commands.watch.make_frame_reader``
    does): ``reader.set_roller(side)`` is told before each frame who rolls next
    (``Referee.expected_roller``: ``"bottom"``, ``"top"`` or ``None``), and
    ``reader.points_under(boxes)`` / ``reader.places_under(boxes)`` say what the
    dice lie over, for a still frame where only the dice moved
    (:meth:`_only_dice_moved`).
    """

    def __init__(
        self,
        bus: EventBus,
        reader: Optional[Reader] = None,
        match_settings: Optional[dict[str, Any]] = None,
        stability: StabilitySettings = StabilitySettings(),
        match_log: Optional[str] = None,
        motion: bool = True,
        resize_to_first: bool = True,
        report_every_frame: bool = False,
    ) -> None:
        self.bus = bus
        self.reader = reader
        self.stability_settings = stability
        self.match_log = match_log
        self._lock = threading.RLock()
        self._latest_image = None
        self._latest_obs: Optional[Observation] = None
        self._expected_shape: Optional[tuple[int, ...]] = None
        self._source_status = "ok"
        self._last_board_status: tuple[str, str] = ("", "")
        self.frames = 0
        self.frames_read = 0
        self.frames_reused = 0
        self._still_reads = 0
        self._read_snapshot = None
        self._stable_obs: Optional[Observation] = None  # the last stable board emitted
        self._stable_snapshot = None  # motion snapshot of a frame read as exactly that board
        self.fast_pickups = 0
        self.photo_status: dict[str, int] = {}  # FrameReadingEvent statuses counted (report_every_frame)
        self._roller_told: Optional[str] = None
        self.bad_frames = 0
        self.motion = None
        if motion and reader is not None:
            from vision.motion import MotionDetector

            self.motion = MotionDetector()
        self.resize_to_first = resize_to_first
        self.report_every_frame = report_every_frame
        self.filter = StabilityFilter(stability)
        self._match_settings: dict[str, Any] = {}
        self.referee: Referee
        self.new_match(match_settings or {})

    # ------------------------------------------------------------ frames
    def process_frame(self, frame) -> Optional[Observation]:
        """Run one ``vision.sources.Frame`` through motion, the reader (only when
        the board is still), the stability filter and the referee. Returns the
        stable observation when there was a new one. A frame that cannot be
        decoded or read is reported (``SourceStatusEvent`` ``"bad_frame"``) and
        skipped; a frame of another size is resized to the first frame's size."""
        import cv2

        self.frames += 1
        self._tell_roller()
        image = frame.image
        if image is None or getattr(image, "ndim", 0) != 3 or image.shape[2] != 3 or image.size == 0:
            self.bad_frames += 1
            detail = frame.error or f"frame {frame.index} is not a colour image"
            self.bus.publish(SourceStatusEvent(status="bad_frame", detail=detail))
            self._settle_again()
            self._report_frame(frame, None, "unreadable", detail)
            return None
        if self._expected_shape is None or not self.resize_to_first:
            self._expected_shape = image.shape
        elif image.shape != self._expected_shape:
            self.bad_frames += 1
            h, w = self._expected_shape[:2]
            self.bus.publish(
                SourceStatusEvent(
                    status="bad_frame",
                    detail=f"frame {frame.index} is {image.shape[1]}x{image.shape[0]}, not {w}x{h}: resized",
                )
            )
            image = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        self._latest_image = image
        moving = self.motion.update(image).moving if self.motion is not None else False
        if moving:
            self._still_reads = 0
            self.filter.push(None, True, frame.timestamp_ms)
            picked_up = self._dice_picked_up(image, frame)
            if picked_up is not None:
                return picked_up
            self._board_status(frame.index)
            return None
        reuse = self._reusable()
        if reuse is not None:
            self.frames_reused += 1
            obs = dataclasses.replace(reuse, frame_index=frame.index, timestamp_ms=frame.timestamp_ms)
            return self.feed_observation(obs, moving=False)
        try:
            obs = self.reader(image)
        except Exception as exc:  # noqa: BLE001 - one unreadable frame must not stop the referee
            self.bad_frames += 1
            self.bus.publish(SourceStatusEvent(status="bad_frame", detail=f"frame {frame.index} unreadable: {exc}"))
            self._settle_again()
            self._report_frame(frame, None, "unreadable", str(exc))
            return None
        self.frames_read += 1
        obs = self._only_dice_moved(image, dataclasses.replace(obs, frame_index=frame.index,
                                                               timestamp_ms=frame.timestamp_ms))
        self._latest_obs = obs
        self._read_snapshot = self.motion.snapshot() if self.motion is not None else None
        self._still_reads += 1
        stable = self.feed_observation(obs, moving=False, frame=frame)
        if self._stable_obs is not None and board_key(obs) == board_key(self._stable_obs):
            self._stable_snapshot = self._read_snapshot  # this frame shows exactly the stable board
        return stable

    def _report_frame(self, frame, obs: Optional[Observation], status: str = "", detail: str = "") -> None:
        """With ``report_every_frame`` (unrelated photos): one
        ``FrameReadingEvent`` per frame, saying what it showed and whether the
        referee got it (the status comes from the stability filter)."""
        if not self.report_every_frame:
            return
        if obs is not None and not status:
            status = {"stable": "read", "held": "held", "occluded": "occluded"}.get(self.filter.status, self.filter.status)
            if status == "held":
                detail = self.filter.held_reason or ""
            elif status == "occluded":
                where = ", ".join(map(str, obs.unreadable_points))
                detail = ("a hand or arm over the board" if obs.occluded else "points not readable") + (
                    f" at points {where}" if where else "") + (" and the bar" if where and obs.bar_unreadable else
                                                               " at the bar" if obs.bar_unreadable else "")
        self.photo_status[status] = self.photo_status.get(status, 0) + 1
        self.bus.publish(FrameReadingEvent(frame_index=frame.index, name=getattr(frame, "name", "") or "",
                                           status=status, detail=detail,
                                           observation={} if obs is None else obs.to_dict()))

    def _tell_roller(self) -> None:
        """Tell the dice reading who rolls next (``reader.set_roller(side)``,
        side ``"bottom"``/``"top"``/``None``: ``Referee.expected_roller``), so a
        die outside that player's right-hand board is read as cocked
        (``wrong_half``) with its message. Without the profile's ``dice_sets``
        who owns the dice is decided by where they land (each player rolls into
        their own right-hand board, DESIGN.md); with them, each die's ``owner``
        by colour, and the other set is left out (``Referee.dice_in_play``)."""
        setter = getattr(self.reader, "set_roller", None)
        if setter is None:
            return
        with self._lock:
            player = self.referee.expected_roller()
        side = None if player is None else ("bottom" if player == 0 else "top")
        if side != self._roller_told:
            setter(side)
            self._roller_told = side

    def _settle_again(self) -> None:
        """After a bad frame or an outage: the board must be read and settle
        again. The last stable board is kept, as the stability filter keeps it
        (an unchanged board is not emitted twice); its picture is taken again
        from the next frame read as that board."""
        self.filter.reset()
        self._still_reads = 0
        self._latest_obs = None
        self._stable_snapshot = None

    def _dice_picked_up(self, image, frame) -> Optional[Observation]:
        """The fast path for the end of a turn (``StabilitySettings.fast_pickup``).

        A frame that moved against the previous one (a hand was there) is
        judged at once, without waiting for still frames, when it proves by
        itself that the dice were picked up and nothing else moved: against the
        picture of the last stable board (which had dice), pixels changed under
        every die's box and nowhere else (``vision.motion``'s comparison size,
        a margin of 2 pixels; at most ``PICKUP_STRAY_FRACTION`` of stray
        pixels), and the whole frame, read, shows no dice in play and the same
        checkers, bar, trays and cube, no hand and no unreadable point. The
        reading is needed as well as the picture: a checker moved onto a point
        of its own shade changes too few pixels to see (a gold checker onto an
        orange point), and one moved from under a die at a stack's end changes
        pixels under the die's box alone. The checkers have then been still
        since that stable reading, so the board is not half seen. Returns the
        new stable observation, or ``None`` (the frame then waits for still
        frames as usual)."""
        stable, snapshot = self._stable_obs, self._stable_snapshot
        if not self.stability_settings.fast_pickup or self.motion is None or stable is None or snapshot is None:
            return None
        with self._lock:  # the dice in play (an idle set of the other player's stays where it is)
            in_play = self.referee.dice_in_play(stable).dice
        if not in_play or any(d.box is None for d in in_play):
            return None
        if not self._changed_only_under(image, snapshot, [d.box for d in in_play]):
            return None
        try:
            obs = self.reader(image)
            self.frames_read += 1
            with self._lock:
                still_down = self.referee.dice_in_play(obs).dice
        except Exception:  # noqa: BLE001 - the usual path reads it again when still
            return None
        if still_down or board_key(obs)[:3] != board_key(stable)[:3] or board_key(obs)[4] != board_key(stable)[4]:
            return None
        obs = dataclasses.replace(obs, frame_index=frame.index, timestamp_ms=frame.timestamp_ms)
        confirmed = self.filter.confirm(obs, frame.timestamp_ms)
        if confirmed is None:
            return None
        self.fast_pickups += 1
        self._latest_obs = None  # the next still frame is read in full
        self._still_reads = 0
        return self._publish_stable(confirmed, frame.index)

    def _changed_only_under(self, image, snapshot, boxes, must_change: bool = True) -> bool:
        """Whether the frame ``image`` ((H, W, 3) uint8, the motion detector's
        last frame) differs from ``snapshot`` (a ``vision.motion`` snapshot)
        nowhere but under ``boxes`` (dice boxes ``(x0, y0, x1, y1)``, image
        pixels; compared at the motion detector's size with a margin of 2
        pixels, at most ``PICKUP_STRAY_FRACTION`` of the pixels changed
        elsewhere) and, with ``must_change``, under every one of them."""
        import numpy as np

        changed = self.motion.changed_mask(snapshot) if self.motion is not None else None
        if changed is None:
            return False
        scale = changed.shape[1] / image.shape[1]
        under_dice = np.zeros_like(changed)
        for x0, y0, x1, y1 in boxes:
            c0, r0 = max(0, int(x0 * scale) - 2), max(0, int(y0 * scale) - 2)
            c1, r1 = int(np.ceil(x1 * scale)) + 3, int(np.ceil(y1 * scale)) + 3
            if must_change and not changed[r0:r1, c0:c1].any():
                return False  # this die's picture did not change
            under_dice[r0:r1, c0:c1] = True
        # anything else changed: a hand, a checker, the light
        return np.count_nonzero(changed & ~under_dice) <= PICKUP_STRAY_FRACTION * changed.size

    def _only_dice_moved(self, image, obs: Observation) -> Observation:
        """A still frame's reading with dice, when nothing but dice moved since
        the last stable board: the picture differs from that board's
        (``_stable_snapshot``) nowhere but under the dice of the frame and of
        that board (dice thrown, or thrown again; a hand over the board changes
        more), and the reading differs from that board only at points the dice
        lie over (``reader.points_under(boxes)``, points 1..24 and ``"bar"``;
        ``companion.commands.watch.make_frame_reader``): a checker moved
        elsewhere may change too few pixels to see (a black checker off a black
        point) but is read. The checkers, bar, trays and cube are then that
        board's, whatever the reader made of the points under the dice (a die
        at the end of a stack read as one more checker, an empty point under
        two jumbo dice read as hidden), and the reading is that board with this
        frame's dice. Where the reader tells where along a point the dice lie
        (``reader.places_under(boxes)``), a point read with other checkers must
        have changed where a die lies (:func:`_changes_under_dice`): a checker
        moved from a point's base to the next point, where a die lies at the
        stack's end, is a play. Otherwise ``obs`` unchanged: the points are
        read as they are, and a hidden one waits until the dice are lifted."""
        stable, snapshot = self._stable_obs, self._stable_snapshot
        points_under = getattr(self.reader, "points_under", None)
        if not obs.dice or stable is None or snapshot is None or points_under is None:
            return obs
        boxes = [d.box for d in obs.dice + stable.dice]
        if any(b is None for b in boxes):
            return obs
        differ = {a.point for a, b in zip(obs.points, stable.points) if (a.count, a.colour) != (b.count, b.colour)}
        differ |= set(obs.unreadable_points) | ({"bar"} if obs.bar != stable.bar or obs.bar_unreadable else set())
        if differ and not differ <= (points_under(boxes) or frozenset()):
            return obs
        places_under = getattr(self.reader, "places_under", None)
        if places_under is not None and not _changes_under_dice(stable, obs, places_under(boxes) or {}):
            return obs
        if not self._changed_only_under(image, snapshot, boxes, must_change=False):
            return obs
        return dataclasses.replace(stable, dice=obs.dice, frame_index=obs.frame_index, timestamp_ms=obs.timestamp_ms)

    def _reusable(self) -> Optional[Observation]:
        """The last reading, when this still frame shows the same picture as the
        frame it was read from and enough still frames have been read to vote
        (``StabilitySettings.window``): the board reader then runs once per
        still period instead of once per frame. ``None`` when a read is needed."""
        if self.motion is None or self._latest_obs is None or self._still_reads < self.stability_settings.window:
            return None
        if self.motion.changed_since(self._read_snapshot) > self.motion.moving_fraction:
            return None
        return self._latest_obs

    def feed_observation(self, obs: Observation, moving: bool = False, frame: Any = None) -> Optional[Observation]:
        """Push one per-frame reading through the stability filter; a new stable
        observation goes on the bus and to the referee. Returns it (or ``None``).
        ``frame``: the ``vision.sources.Frame`` it was read from, for the
        per-photo report (``report_every_frame``), which comes before the
        referee's reaction."""
        stable = self.filter.push(obs, moving, obs.timestamp_ms)
        if frame is not None:
            self._report_frame(frame, obs)
        if stable is None:
            self._board_status(obs.frame_index)
            return None
        self._stable_snapshot = None  # set by process_frame when the frame shows exactly this board
        return self._publish_stable(stable, obs.frame_index)

    def _publish_stable(self, stable: Observation, frame_index: int) -> Observation:
        """A new stable observation: on the bus and to the referee."""
        self._stable_obs = stable
        self._board_status(frame_index)
        self.bus.publish(ObservationEvent(observation=stable.to_dict(), stable=True, frame_index=frame_index))
        disturbed = self.filter.last_disturbed or self.report_every_frame
        with self._lock:
            self.referee.observe(stable, disturbed=disturbed)
        return stable

    def _board_status(self, frame_index: int = -1) -> None:
        """Publish the filter's status when it changes (``settling`` is too
        short-lived to be worth a message)."""
        status = self.filter.status
        if status == "settling":
            return
        detail = self.filter.held_reason or "" if status == "held" else ""
        if (status, detail) != self._last_board_status or self.report_every_frame:
            self._last_board_status = (status, detail)
            self.bus.publish(BoardStatusEvent(status=status, detail=detail, frame_index=frame_index))

    def on_source_status(self, status: str, detail: str) -> None:
        """The grabber's status callback: publishes a ``SourceStatusEvent``; an
        outage makes the board settle again (the state is kept)."""
        self._source_status = status
        if status in ("lost", "reconnecting"):
            self._settle_again()
            if self.motion is not None:
                self.motion.reset()
        self.bus.publish(SourceStatusEvent(status=status, detail=detail))

    def run(self, grabber, stop: threading.Event, on_frame: Optional[Callable[[Any, float], None]] = None,
            pace: Optional[Callable[[Any], None]] = None) -> None:
        """Process frames from ``grabber`` (a started ``FrameGrabber``) until a
        finite source ends or ``stop`` is set. ``pace(frame)`` is called before
        each frame (to play a file in real time); ``on_frame(frame, seconds)``
        after it, with its processing time (for benchmarks)."""
        while not stop.is_set():
            frame = grabber.get(timeout=0.25)
            if frame is None:
                if grabber.ended or not grabber.source.live:
                    break
                continue
            if pace is not None:
                pace(frame)
                if stop.is_set():
                    break
            t0 = time.perf_counter()
            self.process_frame(frame)
            if on_frame is not None:
                on_frame(frame, time.perf_counter() - t0)

    # -------------------------------------------------------- SessionApi
    def state(self) -> dict[str, Any]:
        """The whole current state (``GET /api/state``): see ``SessionApi.state``;
        adds ``stability`` (the filter's status), ``source`` and ``frames``."""
        with self._lock:
            out = self.referee.state()
        out["stability"] = self.filter.describe()
        out["source"] = self._source_status
        out["frames"] = {"seen": self.frames, "read": self.frames_read, "reused": self.frames_reused,
                         "bad": self.bad_frames}
        out["match_settings"] = dict(self._match_settings)
        return out

    def new_match(self, settings: dict[str, Any]) -> None:
        """Start a new match (see ``SessionApi.new_match``). Raises ``ValueError``
        with a sentence for bad settings; the running match is then kept."""
        if not isinstance(settings, dict):
            raise ValueError("match settings are a JSON object")
        try:
            ref_settings = RefereeSettings(
                illegal_play_policy=settings.get("illegal_play_policy", "mandatory_correction"),
                die_on_checker=settings.get("die_on_checker", "flat_ok"),
                mode=settings.get("mode", "tournament"),
                layout=settings.get("layout"),
            )
        except RefereeError as exc:
            raise ValueError(str(exc)) from None
        log_path = self.match_log
        if log_path is not None and hasattr(self, "referee"):
            stem = pathlib.Path(log_path)
            log_path = str(stem.with_name(f"{stem.stem}-{time.strftime('%Y%m%d-%H%M%S')}{stem.suffix}"))
        match = make_match(settings, log_path)
        with self._lock:
            old = getattr(self, "referee", None)
            if old is not None and ref_settings.layout is None:
                ref_settings = dataclasses.replace(ref_settings, layout=old.layout)
            self._match_settings = {k: v for k, v in settings.items() if k != "layout"}
            self.referee = Referee(self.bus, match, ref_settings)
            self.filter.forget_last()
            self.referee._publish_turn()

    def resign(self, player: int, level: int) -> None:
        """``player`` offers to resign at ``level``; ``ValueError`` when not possible."""
        with self._lock:
            self.referee.resign(player, level)

    def answer_resignation(self, accept: bool) -> None:
        """The opponent answers the pending resignation; ``ValueError`` if none."""
        with self._lock:
            self.referee.answer_resignation(bool(accept))

    def set_dice(self, dice: tuple[int, int], by: str) -> None:
        """Override a misread roll; ``ValueError`` when not possible."""
        with self._lock:
            self.referee.set_dice(dice, by=by)
            self.filter.forget_last()

    def set_position(self, position_id: str, by: str) -> None:
        """Override the board with a gnubg Position ID; ``ValueError`` when malformed."""
        with self._lock:
            self.referee.set_position(position_id, by=by)
            self.filter.forget_last()

    def undo(self, by: str) -> None:
        """Undo the last verdict or override; ``ValueError`` when nothing to undo."""
        with self._lock:
            self.referee.undo(by=by)
            self.filter.forget_last()

    def confirm(self, by: str = "keyboard") -> None:
        """Accept the board as it stands while the referee waits for a correction
        (the referee's or the opponent's decision); ``ValueError`` otherwise."""
        with self._lock:
            self.referee.accept_board(by=by)
            self.filter.forget_last()

    def double(self, player: int, by: str = "keyboard") -> None:
        """``player`` doubles (keyboard/dashboard); ``ValueError`` when not allowed."""
        with self._lock:
            self.referee.double(player, by=by)

    def take(self, player: int, by: str = "keyboard") -> None:
        """``player`` takes the pending double; ``ValueError`` when none waits."""
        with self._lock:
            self.referee.take(player, by=by)

    def drop(self, player: int, by: str = "keyboard") -> None:
        """``player`` drops the pending double; ``ValueError`` when none waits."""
        with self._lock:
            self.referee.drop(player, by=by)

    def match_record(self) -> str:
        """The match so far as Jellyfish ``.mat`` text (``companion.mat``)."""
        from companion.mat import export_mat

        with self._lock:
            return export_mat(self.referee.match)

    def latest_frame_jpeg(self) -> Optional[bytes]:
        """The newest frame with the reading and the referee's state drawn over
        it, as JPEG bytes, or ``None`` before the first frame."""
        import cv2

        image = self._latest_image
        if image is None:
            return None
        canvas = image.copy()
        obs = self._latest_obs
        if obs is not None:
            with self._lock:
                in_play = self.referee.dice_in_play(obs).dice
            for d in obs.dice:
                if d.box is not None:
                    x0, y0, x1, y1 = (int(v) for v in d.box)
                    # the other player's idle set in grey; cocked dice of the roll in red
                    colour = (160, 160, 160) if d not in in_play else (0, 0, 255) if d.cocked else (0, 200, 0)
                    cv2.rectangle(canvas, (x0, y0), (x1, y1), colour, 2)
                    cv2.putText(canvas, str(d.value), (x0, y0 - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 255, 255), 2)
        with self._lock:
            waiting = self.referee.phase.value.replace("_", " ")
        text = f"waiting for {waiting} | board {self.filter.status}"
        cv2.putText(canvas, text, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4)
        cv2.putText(canvas, text, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
        ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None
