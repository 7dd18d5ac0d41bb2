"""One long-lived GNU Backgammon process, asked questions one at a time.

:class:`GnubgEngine` starts ``gnubg -t -q -r -p gnubg_script.py`` (the request
loop in :mod:`companion.analysis.gnubg_script`) and exchanges one JSON line per
request over a pair of pipes. Every request has a time limit: a gnubg that does
not answer in time (hung, stopped) is killed and started again for the next
request. A gnubg that dies mid-request is started again and the request asked
once more. When the gnubg program is not installed, or does not start, every
request raises :class:`AnalysisUnavailable` with one sentence saying why.
"""

from __future__ import annotations

import json
import os
import pathlib
import selectors
import subprocess
import threading
import time
from typing import Any, Optional

#: Where Debian's ``gnubg`` package installs the program.
DEFAULT_GNUBG = "/usr/games/gnubg"

SCRIPT = pathlib.Path(__file__).with_name("gnubg_script.py")


class AnalysisUnavailable(RuntimeError):
    """gnubg cannot answer: not installed, did not start, died twice on one
    request, or ran past the time limit. The message is one sentence."""


class AnalysisTimeout(AnalysisUnavailable):
    """gnubg did not answer within the time limit (it has been killed)."""


class GnubgEngine:
    """A gnubg process driven through its Python scripting (``-p``).

    ``gnubg``: path of the program. ``timeout_s``: seconds allowed per request
    (a 2-ply ``hint`` takes about 0.1 s; a request past the limit kills gnubg).
    ``start_timeout_s``: seconds allowed for gnubg to load its neural nets and
    say it is ready. Thread-safe: requests are serialised by a lock. Starts
    gnubg lazily on the first request; :meth:`close` ends it.

    Counters for the dashboard and tests: ``starts`` (processes started),
    ``deaths`` (processes found dead mid-request), ``timeouts``.
    """

    def __init__(self, gnubg: str = DEFAULT_GNUBG, timeout_s: float = 10.0,
                 start_timeout_s: float = 30.0) -> None:
        self.gnubg = gnubg
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self._lock = threading.Lock()
        self._proc: Optional[subprocess.Popen] = None
        self._to_gnubg: Optional[Any] = None
        self._from_gnubg: Optional[int] = None
        self._buffer = b""
        self._next_id = 0
        self.starts = 0
        self.deaths = 0
        self.timeouts = 0

    # ------------------------------------------------------------ state
    def missing(self) -> Optional[str]:
        """Why gnubg cannot run at all (``None`` when the program is there)."""
        if not os.path.isfile(self.gnubg) or not os.access(self.gnubg, os.X_OK):
            return f"GNU Backgammon is not installed ({self.gnubg} not found; apt-get install gnubg)"
        return None

    @property
    def pid(self) -> Optional[int]:
        """The running gnubg's process id, ``None`` when none runs."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    # ------------------------------------------------------------ process
    def _start(self) -> None:
        why = self.missing()
        if why:
            raise AnalysisUnavailable(why)
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        env = dict(os.environ, COMPANION_ANALYSIS_FDS=f"{req_r},{ans_w}")
        try:
            proc = subprocess.Popen(
                [self.gnubg, "-t", "-q", "-r", "-p", str(SCRIPT)], env=env, pass_fds=(req_r, ans_w),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            for fd in (req_r, req_w, ans_r, ans_w):
                os.close(fd)
            raise AnalysisUnavailable(f"GNU Backgammon did not start: {exc.strerror or exc}") from None
        os.close(req_r)
        os.close(ans_w)
        self._proc = proc
        self._to_gnubg = os.fdopen(req_w, "wb", buffering=0)
        self._from_gnubg = ans_r
        self._buffer = b""
        self.starts += 1
        try:
            ready = self._read_line(self.start_timeout_s)
        except AnalysisTimeout:
            ready = None
        if ready is None or not ready.get("ready"):
            self._stop()
            raise AnalysisUnavailable("GNU Backgammon started but did not become ready")

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if self._to_gnubg is not None:
            try:
                self._to_gnubg.close()
            except OSError:
                pass
            self._to_gnubg = None
        if self._from_gnubg is not None:
            os.close(self._from_gnubg)
            self._from_gnubg = None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()

    def _read_line(self, timeout_s: float) -> Optional[dict]:
        """The next JSON line from gnubg; ``None`` at end of file (gnubg died).
        Raises :class:`AnalysisTimeout` past ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        with selectors.DefaultSelector() as sel:
            sel.register(self._from_gnubg, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise AnalysisTimeout(f"GNU Backgammon did not answer within {timeout_s:g} s")
                chunk = os.read(self._from_gnubg, 65536)
                if not chunk:
                    return None
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _exchange(self, request: dict, timeout_s: float) -> Optional[dict]:
        """Send ``request``, wait for its answer; ``None`` when gnubg died."""
        if self._proc is None or self._proc.poll() is not None:
            self._stop()
            self._start()
        try:
            self._to_gnubg.write((json.dumps(request) + "\n").encode())
        except (BrokenPipeError, OSError):
            return None
        while True:
            answer = self._read_line(timeout_s)
            if answer is None or answer.get("id") == request["id"]:
                return answer

    # ------------------------------------------------------------ requests
    def request(self, request: dict, timeout_s: Optional[float] = None) -> dict:
        """Ask gnubg one question (a request of :mod:`~companion.analysis.gnubg_script`,
        without ``id``) and return its answer dict. ``timeout_s``: this request's
        time limit (default: the engine's ``timeout_s``).

        Raises :class:`AnalysisUnavailable` when gnubg is missing, does not start
        or dies twice on this request; :class:`AnalysisTimeout` (gnubg killed,
        restarted on the next request) past ``timeout_s``; ``ValueError`` with
        gnubg's message when gnubg rejects the request.
        """
        with self._lock:
            for attempt in range(2):
                self._next_id += 1
                request = dict(request, id=self._next_id)
                try:
                    answer = self._exchange(request, timeout_s or self.timeout_s)
                except AnalysisTimeout:
                    self.timeouts += 1
                    self._stop()
                    raise
                if answer is not None:
                    break
                self.deaths += 1
                self._stop()
            else:
                raise AnalysisUnavailable("GNU Backgammon died twice while analysing this position")
        if "error" in answer:
            raise ValueError(f"GNU Backgammon: {answer['error']}")
        return answer

    def close(self) -> None:
        """End the gnubg process (if one runs)."""
        with self._lock:
            self._stop()

    def __enter__(self) -> "GnubgEngine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
