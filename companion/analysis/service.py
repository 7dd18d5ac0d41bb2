"""The analysis service: gnubg's judgement of every play and cube decision, after the verdict.

:class:`AnalysisService` subscribes to the session's
:class:`~companion.bus.EventBus`. Its bus callback only notes the match state
(from ``turn`` events) and queues a job, so the referee's verdict is never
delayed; one worker thread asks gnubg (:class:`~companion.analysis.analyst.Analyst`)
and publishes an :class:`~companion.analysis.event.AnalysisEvent` for each job:

* a ``verdict`` ``legal`` or ``corrected``: every legal play of the roll ranked,
  the play made marked with its equity loss and gnubg's label; ``illegal``: the
  best legal plays;
* a ``cube`` ``double``: the doubler's decision; ``take`` / ``drop``: the
  taker's (both judged on the position before the double);
* a ``roll`` by a player who could have doubled: published only when gnubg
  would have doubled (a missed double);
* a ``game_end`` (with a ``match_record``): gnubg's review of the match so far
  (:func:`~companion.analysis.match_review.review_match`: error rates, luck,
  ratings, the worst decisions), as an event of kind ``"match"``.

It runs only while ``teaching()`` is true (tournament rules forbid electronic
aids). When gnubg is missing, hung or dead, the event says ``"unavailable"``
and the referee goes on; the engine starts gnubg again for the next job.
With a ``store``, every analysis is also written to the match log's file.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from typing import Any, Callable, Optional

from companion.analysis.analyst import Analyst, mover_match_id
from companion.analysis.engine import AnalysisUnavailable
from companion.analysis.event import AnalysisEvent
from companion.analysis.results import skill_label
from companion.bus import Event, EventBus
from companion.match_id import MatchIdError, MatchKey

log = logging.getLogger(__name__)

#: Verdicts whose play gnubg ranks (``accepted`` illegal plays are not among its plays).
PLAY_VERDICTS = ("legal", "corrected", "illegal")


@dataclasses.dataclass
class ErrorTally:
    """One player's running figures: ``plays`` (unforced plays judged),
    ``play_loss`` (their summed equity loss), ``cube_decisions`` and
    ``cube_loss`` (doubles, takes, drops and missed doubles judged)."""

    plays: int = 0
    play_loss: float = 0.0
    cube_decisions: int = 0
    cube_loss: float = 0.0

    @property
    def error_rate(self) -> Optional[float]:
        """gnubg's chequer-play error rate: thousandths of a point (mEMG) lost
        per unforced play; ``None`` before the first."""
        return None if self.plays == 0 else 1000.0 * self.play_loss / self.plays

    def to_dict(self) -> dict[str, Any]:
        """``{"plays", "play_loss", "error_rate", "cube_decisions", "cube_loss"}``."""
        return {"plays": self.plays, "play_loss": self.play_loss, "error_rate": self.error_rate,
                "cube_decisions": self.cube_decisions, "cube_loss": self.cube_loss}


@dataclasses.dataclass(frozen=True)
class _Job:
    kind: str
    player: int
    decision: str
    position_id: str
    match_id: str
    verdict: str = ""
    dice: tuple[int, int] = (0, 0)
    after: Optional[str] = None
    verdict_ms: float = 0.0
    record: str = ""
    match: int = 0


def _cube_available(match_id: str, player: int) -> bool:
    """``player`` may double in the state ``match_id`` (absolute players): a
    game in play, not the Crawford game, the cube centred or his."""
    try:
        key = MatchKey.decode(match_id)
    except MatchIdError:
        return False
    return (key.game_state == "playing" and not key.crawford
            and key.cube_owner in (None, player) and not key.doubled)


class AnalysisService:
    """gnubg's judgement on the bus (see the module doc).

    ``bus``: the session's bus. ``analyst``: asks gnubg. ``teaching``: returns
    whether the session is in teaching mode now (checked for every event).
    ``store_path``: the match log's SQLite file, or ``None``. ``match_record``:
    returns the match so far as a Jellyfish ``.mat`` text (called in the
    publisher's thread at each game end; raising ``ValueError`` when the match
    cannot be written) for gnubg's review, or ``None`` for no review.
    ``current_match``: returns the match being played (any object; a new one
    starts the error tallies again), or ``None`` (one match for the service's
    life). Call :meth:`close` to stop the worker (the engine is closed by its owner).
    """

    def __init__(self, bus: EventBus, analyst: Analyst, teaching: Callable[[], bool],
                 store_path: Optional[str] = None, max_queue: int = 64,
                 match_record: Optional[Callable[[], str]] = None,
                 current_match: Optional[Callable[[], Any]] = None) -> None:
        self.bus = bus
        self.analyst = analyst
        self.teaching = teaching
        self.store_path = store_path
        self.match_record = match_record
        self.current_match = current_match
        self.tallies = [ErrorTally(), ErrorTally()]
        self._tallied_match = 0  # id() of the match the tallies count
        self.published = 0
        self._before_roll: dict[int, tuple[str, str]] = {}  # player -> (position_id, match_id)
        self._play_match: dict[int, str] = {}  # player -> match_id while he plays
        self._doubled: Optional[tuple[int, str, str]] = None  # (doubler, position_id, match_id)
        self._jobs: "queue.Queue[Optional[_Job]]" = queue.Queue(maxsize=max_queue)
        self._idle = threading.Condition()
        self._pending = 0
        self._thread = threading.Thread(target=self._work, name="analysis", daemon=True)
        self._thread.start()
        self._unsubscribe = bus.subscribe(self._on_event)

    # ------------------------------------------------------ the bus side
    def _on_event(self, event: Event) -> None:
        kind = event.type
        if kind == "turn":
            player = event.player
            if player in (0, 1) and event.position_id and event.match_id:
                if event.waiting_for == "roll":
                    self._before_roll[player] = (event.position_id, event.match_id)
                elif event.waiting_for == "play":
                    self._play_match[player] = event.match_id
            return
        if kind not in ("verdict", "cube", "roll", "game_end") or not self.teaching():
            return
        if kind == "game_end":
            self._on_game_end(event)
        elif kind == "verdict":
            self._on_verdict(event)
        elif kind == "cube":
            self._on_cube(event)
        elif not event.opening:
            self._on_roll(event)

    def _on_verdict(self, event: Event) -> None:
        p = event.player
        if event.verdict not in PLAY_VERDICTS or p not in (0, 1) or 0 in event.dice:
            return
        self._queue(_Job(
            kind="play", player=p, decision="play", verdict=event.verdict, dice=tuple(event.dice),
            position_id=event.position_id_before,
            match_id=mover_match_id(self._play_match.get(p), p),
            after=event.position_id_after if event.verdict != "illegal" else None,
            verdict_ms=event.time_ms))

    def _on_cube(self, event: Event) -> None:
        if event.action == "double" and event.player in self._before_roll:
            position_id, match_id = self._before_roll[event.player]
            self._doubled = (event.player, position_id, match_id)
            doubler, decision, player = event.player, "double", event.player
        elif event.action in ("take", "drop") and self._doubled is not None:
            doubler, position_id, match_id = self._doubled
            decision, player = event.action, event.player
        else:
            return
        self._queue(_Job(kind="cube", player=player, decision=decision, position_id=position_id,
                         match_id=mover_match_id(match_id, doubler), verdict_ms=event.time_ms))

    def _on_roll(self, event: Event) -> None:
        p = event.player
        if p not in self._before_roll:
            return
        position_id, match_id = self._before_roll[p]
        if _cube_available(match_id, p):
            self._queue(_Job(kind="cube", player=p, decision="no_double", position_id=position_id,
                             match_id=mover_match_id(match_id, p), verdict_ms=event.time_ms))

    def _on_game_end(self, event: Event) -> None:
        if self.match_record is None:
            return
        try:
            record = self.match_record()
        except ValueError as exc:  # a match .mat cannot hold (a board correction)
            record = "error: " + str(exc)
        self._queue(_Job(kind="match", player=event.winner, decision="review", position_id="",
                         match_id="", verdict_ms=event.time_ms, record=record))

    def _queue(self, job: _Job) -> None:
        if self.current_match is not None:
            job = dataclasses.replace(job, match=id(self.current_match()))
        with self._idle:
            self._pending += 1
        try:
            self._jobs.put_nowait(job)
        except queue.Full:  # gnubg far behind: drop the job rather than hold the referee
            log.warning("analysis queue full: %s of player %d not analysed", job.decision, job.player)
            self._done()

    def _done(self) -> None:
        with self._idle:
            self._pending -= 1
            self._idle.notify_all()

    # -------------------------------------------------- the worker side
    def _work(self) -> None:
        store = None
        try:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                try:
                    if store is None and self.store_path:
                        from companion.analysis.store import AnalysisStore

                        store = AnalysisStore(self.store_path)
                    event = self._analyse(job)
                    if event is not None:
                        if store is not None and event.status == "ok":
                            store.add(event)
                        self.bus.publish(event)
                        self.published += 1
                except Exception:  # noqa: BLE001 - the analysis must never stop the referee
                    log.exception("analysis of %s failed", job.decision)
                finally:
                    self._done()
        finally:
            if store is not None:
                store.close()

    def _analyse(self, job: _Job) -> Optional[AnalysisEvent]:
        if job.match != self._tallied_match:  # a new match: count again from zero
            self._tallied_match = job.match
            self.tallies = [ErrorTally(), ErrorTally()]
        common = dict(kind=job.kind, player=job.player, decision=job.decision, verdict=job.verdict,
                      dice=job.dice, position_id=job.position_id, match_id=job.match_id,
                      verdict_ms=job.verdict_ms)
        try:
            if job.kind == "match":
                return self._review(job, common)
            if job.kind == "play":
                result = self.analyst.plays(job.position_id, job.dice, job.match_id, after=job.after)
                loss = result.equity_loss
                if loss is not None and not result.forced:
                    self.tallies[job.player].plays += 1
                    self.tallies[job.player].play_loss += loss
            else:
                result = self.analyst.cube(job.position_id, job.match_id)
                if job.decision == "no_double" and not result.should_double:
                    return None  # a right no-double is not news
                loss = result.cost(job.decision)
                self.tallies[job.player].cube_decisions += 1
                self.tallies[job.player].cube_loss += loss
        except (AnalysisUnavailable, ValueError) as exc:
            return AnalysisEvent(status="unavailable", detail=str(exc), error_rates=self._rates(),
                                 elapsed_ms=self._since(job), **common)
        return AnalysisEvent(analysis=result.to_dict(), equity_loss=loss, label=skill_label(loss),
                             error_rates=self._rates(), elapsed_ms=self._since(job), **common)

    def _review(self, job: _Job, common: dict) -> AnalysisEvent:
        from companion.analysis.match_review import review_match

        if job.record.startswith("error: "):
            raise ValueError(job.record[len("error: "):])
        review = review_match(self.analyst.engine, job.record, plies=self.analyst.plies,
                              timeout_s=max(600.0, self.analyst.engine.timeout_s))
        return AnalysisEvent(analysis=review.to_dict(worst=5), error_rates=self._rates(),
                             elapsed_ms=self._since(job), **common)

    def _rates(self) -> tuple[dict[str, Any], ...]:
        return tuple(t.to_dict() for t in self.tallies)

    @staticmethod
    def _since(job: _Job) -> float:
        return max(0.0, time.time() * 1000.0 - job.verdict_ms)

    # ----------------------------------------------------------- control
    def wait_idle(self, timeout_s: float = 30.0) -> bool:
        """Wait until every queued job is published; ``False`` on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout=timeout_s)

    def close(self) -> None:
        """Stop listening and end the worker thread (after the job in hand)."""
        self._unsubscribe()
        self._jobs.put(None)
        self._thread.join(timeout=30.0)
