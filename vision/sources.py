"""Frame sources for ``companion watch``: camera, video file, folder, stream URL.

A source yields :class:`Frame` objects (``image`` an ``(H, W, 3)`` uint8 BGR
array, ``index`` counting from 0, ``timestamp_ms`` milliseconds since the start
of the source). :func:`open_source` turns the ``--source`` text into a source:

- ``"0"``, ``"1"``, ... a camera by index (live),
- ``rtsp://...``, ``http://...``, ``https://...`` a network stream (live; MJPEG
  over HTTP and RTSP through OpenCV's FFmpeg back end),
- a folder: its image files in natural name order (finite),
- a video file (finite), or a single image file (finite, one frame).

:class:`FrameGrabber` reads a source in its own thread. For a live source only
the newest frame is kept (a slow consumer never reads a stale frame); a finite
source is read without dropping frames (a bounded queue applies back-pressure).
A live source that fails is closed and reopened with exponential back-off
forever, and every change is reported through the ``on_status`` callback; the
consumer's state is untouched by an outage.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import queue
import re
import threading
import time
from typing import Callable, Optional

import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(ValueError):
    """A ``--source`` that cannot be opened (no such file, no camera, bad URL)."""


@dataclasses.dataclass(frozen=True)
class Frame:
    """One frame: ``image`` (H, W, 3) uint8 BGR, or ``None`` for a frame that could
    not be decoded (``error`` says why); ``index`` from 0 in source order;
    ``timestamp_ms`` milliseconds since the source started (nominal for files and
    folders: ``index * 1000 / fps``; the wall clock for live sources)."""

    image: Optional[np.ndarray]
    index: int
    timestamp_ms: float
    error: Optional[str] = None
    name: str = ""


def _natural_key(name: str) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


class FolderSource:
    """The image files of a folder in natural name order (``frame2`` before
    ``frame10``), one frame each. A file that cannot be decoded gives a
    :class:`Frame` with ``image=None`` and an ``error``, never an exception.
    ``fps`` sets the nominal timestamps (frames per second)."""

    live = False

    def __init__(self, folder: str | os.PathLike, fps: float = 30.0) -> None:
        self.folder = pathlib.Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"no such folder: {self.folder}")
        if fps <= 0:
            raise SourceError(f"fps must be positive, got {fps}")
        self.fps = fps
        self.files = sorted(
            (p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
            key=lambda p: _natural_key(p.name),
        )
        if not self.files:
            raise SourceError(f"no image files in folder {self.folder}")
        self._next = 0
        self.description = f"folder {self.folder} ({len(self.files)} images)"

    def open(self) -> None:
        """Start from the first file."""
        self._next = 0

    def read(self) -> Optional[Frame]:
        """The next frame, or ``None`` after the last file."""
        import cv2

        if self._next >= len(self.files):
            return None
        index = self._next
        self._next += 1
        path = self.files[index]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        ts = index * 1000.0 / self.fps
        if image is None:
            return Frame(None, index, ts, error=f"cannot decode {path.name}", name=path.name)
        return Frame(image, index, ts, name=path.name)

    def close(self) -> None:
        """Nothing to release."""


class CaptureSource:
    """A source read through ``cv2.VideoCapture``: a video file (finite), a
    camera index or a stream URL (live). ``target`` is a path, an int index or a
    URL. Live timestamps are wall-clock milliseconds since :meth:`open`; file
    timestamps are nominal (``index * 1000 / fps`` with the file's own fps)."""

    def __init__(self, target: str | int, live: bool, fps: float = 30.0) -> None:
        self.target = target
        self.live = live
        self.fps = fps
        self._cap = None
        self._index = 0
        self._t0 = 0.0
        kind = "camera" if isinstance(target, int) else ("stream" if live else "video")
        self.description = f"{kind} {target}"

    def open(self) -> None:
        """Open the capture; raises :class:`SourceError` when it cannot be opened."""
        import cv2

        self.close()
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.description}")
        self._cap = cap
        if not self.live:
            file_fps = cap.get(cv2.CAP_PROP_FPS)
            if file_fps and 1.0 <= file_fps <= 240.0:
                self.fps = float(file_fps)
        self._t0 = time.monotonic()

    def read(self) -> Optional[Frame]:
        """The next frame; ``None`` at the end of a file or when a live source
        fails (the grabber then reopens it)."""
        if self._cap is None:
            return None
        ok, image = self._cap.read()
        if not ok or image is None:
            return None
        index = self._index
        self._index += 1
        if self.live:
            ts = (time.monotonic() - self._t0) * 1000.0
        else:
            ts = index * 1000.0 / self.fps
        if image.ndim == 2:
            import cv2

            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        return Frame(image, index, ts)

    def close(self) -> None:
        """Release the capture (safe to call twice)."""
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def open_source(spec: str, fps: float = 30.0):
    """Turn a ``--source`` text into an (unopened) source.

    ``spec``: a camera index (``"0"``), an ``rtsp://``/``http(s)://`` URL, a
    folder, a video file or an image file. ``fps``: nominal frames per second for
    folders. Raises :class:`SourceError` for a path that does not exist. (The
    ``demo`` source is resolved by the ``watch`` command, which renders it.)
    """
    spec = spec.strip()
    if not spec:
        raise SourceError("empty --source")
    if spec.isdigit():
        return CaptureSource(int(spec), live=True)
    if re.match(r"^(rtsp|rtmp|https?)://", spec, re.IGNORECASE):
        return CaptureSource(spec, live=True)
    path = pathlib.Path(spec)
    if path.is_dir():
        return FolderSource(path, fps=fps)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return _SingleImageSource(path)
        return CaptureSource(str(path), live=False)
    raise SourceError(f"no such file, folder or camera: {spec}")


class _SingleImageSource(FolderSource):
    """One image file as a one-frame source."""

    def __init__(self, path: pathlib.Path) -> None:  # noqa: D107 - see class
        self.folder = path.parent
        self.fps = 30.0
        self.files = [path]
        self._next = 0
        self.description = f"image {path}"


StatusCallback = Callable[[str, str], None]


class FrameGrabber:
    """Reads a source in a thread of its own.

    ``source``: an object with ``open()``, ``read() -> Frame | None``,
    ``close()``, ``live`` and ``description`` (the classes above).
    ``on_status(status, detail)`` is called with ``"ok"``, ``"lost"``,
    ``"reconnecting"``, ``"ended"`` as the source's state changes.
    ``backoff_s``: first reopen delay in seconds, doubled per failure up to
    ``max_backoff_s``. ``queue_size``: frames buffered for a finite source.

    Use :meth:`get` to take the next frame: the newest one for a live source,
    the next one in order for a finite source; ``None`` once a finite source has
    ended (or after :meth:`stop`).
    """

    def __init__(
        self,
        source,
        on_status: Optional[StatusCallback] = None,
        backoff_s: float = 0.5,
        max_backoff_s: float = 5.0,
        queue_size: int = 8,
    ) -> None:
        self.source = source
        self.on_status = on_status or (lambda status, detail: None)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._queue: "queue.Queue[Optional[Frame]]" = queue.Queue(maxsize=queue_size)
        self._latest: Optional[Frame] = None
        self._latest_seq = 0
        self._taken_seq = 0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._ended = False
        self._thread: Optional[threading.Thread] = None
        self.frames_read = 0
        self.frames_dropped = 0
        self.outages = 0

    def start(self) -> "FrameGrabber":
        """Open the source (raises :class:`SourceError` if a finite source cannot
        be opened; a live source that cannot be opened is retried) and start the
        thread."""
        if self.source.live:
            try:
                self.source.open()
                self.on_status("ok", f"{self.source.description} opened")
            except SourceError as exc:
                self.outages += 1
                self.on_status("lost", str(exc))
        else:
            self.source.open()
            self.on_status("ok", f"{self.source.description} opened")
        self._thread = threading.Thread(target=self._run, name="frame-grabber", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the thread and close the source. A thread still inside the source after
        ``timeout_s`` seconds (a network camera's read or reopen that does not return) is left to
        end with the process and the source is not closed under it: releasing an OpenCV capture
        while another thread reads it can block for good (a stop must not hang ``watch``)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass
        if self._thread is not None:
            self._thread.join(timeout=timeout_s)
            if self._thread.is_alive():
                return
        self.source.close()

    # --- the thread -------------------------------------------------------
    def _run(self) -> None:
        if self.source.live:
            self._run_live()
        else:
            self._run_finite()

    def _run_finite(self) -> None:
        while not self._stop.is_set():
            frame = self.source.read()
            if frame is None:
                break
            self.frames_read += 1
            while not self._stop.is_set():
                try:
                    self._queue.put(frame, timeout=0.1)
                    break
                except queue.Full:
                    continue
        self._ended = True
        if not self._stop.is_set():
            self.on_status("ended", f"{self.source.description} ended after {self.frames_read} frames")
        while True:
            try:
                self._queue.put(None, timeout=0.1)
                break
            except queue.Full:
                if self._stop.is_set():
                    break

    def _run_live(self) -> None:
        delay = self.backoff_s
        opened = getattr(self.source, "_cap", None) is not None
        while not self._stop.is_set():
            if not opened:
                if self._stop.wait(delay):
                    break
                self.on_status("reconnecting", f"reopening {self.source.description} (after {delay:.1f} s)")
                try:
                    self.source.open()
                except SourceError as exc:
                    delay = min(delay * 2.0, self.max_backoff_s)
                    self.on_status("lost", str(exc))
                    continue
                opened = True
                delay = self.backoff_s
                self.on_status("ok", f"{self.source.description} back")
            frame = self.source.read()
            if frame is None:
                self.outages += 1
                self.source.close()
                opened = False
                self.on_status("lost", f"{self.source.description} stopped delivering frames")
                continue
            self.frames_read += 1
            with self._cond:
                if self._latest_seq > self._taken_seq:
                    self.frames_dropped += 1
                self._latest = frame
                self._latest_seq += 1
                self._cond.notify_all()

    # --- the consumer -----------------------------------------------------
    def get(self, timeout: Optional[float] = None) -> Optional[Frame]:
        """The next frame to process (see the class), or ``None`` at the end or
        when ``timeout`` seconds pass without a frame from a live source."""
        if not self.source.live:
            if self._stop.is_set():
                return None
            try:
                return self._queue.get(timeout=timeout)
            except queue.Empty:
                return None
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._latest_seq == self._taken_seq and not self._stop.is_set():
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            if self._stop.is_set():
                return None
            self._taken_seq = self._latest_seq
            return self._latest

    @property
    def ended(self) -> bool:
        """True once a finite source has delivered its last frame."""
        return self._ended


def unrelated_photos(source, sample: int = 12) -> Optional[str]:
    """Why the frames of ``source`` look like unrelated still photos rather than
    a recording (to be read one by one, ``companion watch --stills``), or
    ``None``: a single image file; a folder whose images (up to ``sample`` of
    them, spread over the folder, decoded at 1/8 size; one too small for that
    gives no hint) differ in size, with no
    size shared by three quarters of them, as photos from different cameras do
    (the frames of one camera share one size, but for a bad frame or two).
    Other sources (cameras, streams, videos) give ``None``."""
    import cv2

    if isinstance(source, _SingleImageSource):
        return "a single photo"
    if not isinstance(source, FolderSource) or len(source.files) < 2:
        return None
    step = max(1, len(source.files) // sample)
    sizes: dict[tuple[int, ...], int] = {}
    for path in source.files[::step][:sample]:
        try:
            image = cv2.imread(str(path), cv2.IMREAD_REDUCED_GRAYSCALE_8)
        except cv2.error:  # OpenCV cannot shrink an image under 8 pixels 8 times: no size hint from it
            continue
        if image is not None:
            sizes[image.shape[:2]] = sizes.get(image.shape[:2], 0) + 1
    if len(sizes) > 1 and max(sizes.values()) < 0.75 * sum(sizes.values()):
        return "the images differ in size (photos, not the frames of one camera)"
    return None
