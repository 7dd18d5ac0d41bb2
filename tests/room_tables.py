"""Simulated tables for the tournament-room tests and benchmark: a real
:class:`companion.session.Session` per table, fed a seeded scripted game frame
by frame (as the camera would report it), publishing through a real
:class:`companion.hub_publisher.TablePublisher` to a real broker."""

from __future__ import annotations

import collections
import pathlib
from typing import Any, Optional

from companion.bus import EventBus
from companion.hub_address import parse_hub_url
from companion.hub_outbox import Outbox
from companion.hub_publisher import TablePublisher
from companion.scripted_game import observations, random_game
from companion.session import Session


class SimTable:
    """Table ``number`` of ``tournament`` on the broker at ``url``, its outbox in
    ``folder``; plays ``games`` seeded games (``seed``) of a match to
    ``match_length``; ``ca_file``: the CAs to trust for ``mqtts://``. ``step(n)`` feeds the next ``n`` frames; ``done`` when the
    script is over. ``seen`` counts the events the table's own bus carried, per type."""

    def __init__(self, url: str, tournament: str, number: int, folder: pathlib.Path, seed: int,
                 match_length: int = 3, games: int = 2, token: Optional[str] = None,
                 heartbeat_s: float = 1.0, outbox_name: Optional[str] = None, ca_file: Optional[str] = None) -> None:
        self.number = number
        self.bus = EventBus()
        self.seen: collections.Counter[str] = collections.Counter()
        self.bus.subscribe(lambda e: self.seen.update([e.type]))
        self.session = Session(self.bus, reader=None, match_settings={"match_length": match_length,
                                                                      "players": (f"North {number}", f"South {number}")})
        script = random_game(seed, match_length=match_length, games=games, max_turns=12)
        self.frames = observations(script, misread_rate=0.05, seed=seed)
        self.position = 0
        self.outbox = Outbox(str(folder / (outbox_name or f"table-{number}.sqlite")))
        self.publisher = TablePublisher(parse_hub_url(url, ca_file=ca_file), tournament, number, self.session, self.outbox,
                                        token=token, heartbeat_s=heartbeat_s, state_period_s=0.1)

    def start(self) -> "SimTable":
        """Start publishing."""
        self.publisher.start()
        return self

    @property
    def done(self) -> bool:
        """True when every frame has been fed."""
        return self.position >= len(self.frames)

    def step(self, n: int = 1) -> None:
        """Feed the next ``n`` frames."""
        for obs, moving in self.frames[self.position:self.position + n]:
            self.session.feed_observation(obs, moving)
        self.position = min(self.position + n, len(self.frames))

    def stop(self) -> None:
        """Stop publishing and close the outbox."""
        self.publisher.stop()
        self.outbox.close()

    def outbox_counts(self) -> dict[str, Any]:
        """Events per type in the outbox (what the hub must have, exactly)."""
        return self.outbox.counts()
