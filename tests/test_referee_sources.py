"""Frame sources, the grabber thread and motion, on real image and video files."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest
from mjpeg_camera import MjpegCamera

from vision.motion import MotionDetector
from vision.sources import CaptureSource, FolderSource, FrameGrabber, SourceError, open_source


def _image(value: int, w: int = 64, h: int = 48) -> np.ndarray:
    img = np.full((h, w, 3), value, np.uint8)
    cv2.putText(img, str(value), (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
    return img


def test_folder_source_natural_order_and_corrupt_file(tmp_path):
    for i in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), _image(i * 10))
    (tmp_path / "frame5.jpg").write_bytes(b"not a jpeg at all")
    (tmp_path / "notes.txt").write_text("ignored")
    src = FolderSource(tmp_path, fps=10)
    src.open()
    frames = []
    while (f := src.read()) is not None:
        frames.append(f)
    assert [f.name for f in frames] == ["frame1.png", "frame2.png", "frame5.jpg", "frame10.png"]
    assert frames[2].image is None and "cannot decode" in frames[2].error
    assert frames[3].image.shape == (48, 64, 3) and frames[3].image[0, 0, 0] == 100
    assert [f.timestamp_ms for f in frames] == [0.0, 100.0, 200.0, 300.0]


def test_open_source_errors(tmp_path):
    with pytest.raises(SourceError):
        open_source(str(tmp_path / "missing"))
    with pytest.raises(SourceError):
        open_source(str(tmp_path))  # a folder without images
    assert open_source("0").live is True
    assert open_source("http://127.0.0.1:9/stream.mjpg").live is True


def _write_video(path, n, size=(64, 48)):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, size)
    assert writer.isOpened()
    for i in range(n):
        writer.write(_image(20 + 10 * i, *size))
    writer.release()


def test_video_file_through_the_grabber_drops_nothing(tmp_path):
    path = tmp_path / "clip.avi"
    _write_video(path, 12)
    statuses = []
    grabber = FrameGrabber(open_source(str(path)), on_status=lambda s, d: statuses.append(s), queue_size=2).start()
    frames = []
    while (f := grabber.get(timeout=5)) is not None:
        time.sleep(0.005)  # a slow consumer still sees every frame of a file
        frames.append(f)
    grabber.stop()
    assert [f.index for f in frames] == list(range(12))
    assert frames[1].timestamp_ms == pytest.approx(40.0)
    assert statuses == ["ok", "ended"]


def test_live_source_that_disappears_is_reopened_with_backoff(tmp_path):
    """A live capture (here a video file read as a live stream) that ends is
    reported lost, retried while missing, and delivers again once back."""
    path = tmp_path / "cam.avi"
    _write_video(path, 5)
    hidden = tmp_path / "away.avi"
    events = []
    lock = threading.Lock()

    def on_status(status, detail):
        with lock:
            events.append(status)
        if status == "lost" and not hidden.exists() and path.exists() and len(events) < 3:
            path.rename(hidden)  # the camera is unplugged

    grabber = FrameGrabber(CaptureSource(str(path), live=True), on_status=on_status, backoff_s=0.05, max_backoff_s=0.2)
    grabber.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with lock:
            if events.count("reconnecting") >= 2:
                break
        time.sleep(0.02)
    hidden.rename(path)  # plugged back in
    got = None
    while time.monotonic() < deadline:
        with lock:
            if events[-1] == "ok" and events.count("ok") >= 2:
                break
        time.sleep(0.02)
    got = grabber.get(timeout=5)
    grabber.stop()
    assert events[0] == "ok"
    assert "lost" in events and "reconnecting" in events
    assert events.count("ok") >= 2  # back after the outage
    assert got is not None and got.image is not None
    assert grabber.outages >= 1


def _test_card_stream(frames=15):
    """One connection's frames: ``frames`` grey test cards (96x64 JPEG), then the stream ends."""
    for i in range(frames):
        ok, buf = cv2.imencode(".jpg", _image(30 + 8 * (i % 20), 96, 64))
        yield buf.tobytes()


def test_an_http_camera_that_goes_away_is_reopened_with_backoff():
    camera = MjpegCamera(_test_card_stream, interval_s=0.01)
    statuses = []
    lock = threading.Lock()

    def on_status(status, detail):
        with lock:
            statuses.append(status)

    source = open_source(camera.url)
    assert source.live
    grabber = FrameGrabber(source, on_status=on_status, backoff_s=0.05, max_backoff_s=0.2).start()
    first = grabber.get(timeout=10)
    assert first is not None and first.image.shape == (64, 96, 3)
    camera.stop()  # the camera leaves the network
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with lock:
            if statuses.count("lost") >= 2 and "reconnecting" in statuses:
                break
        time.sleep(0.02)
    camera.start()  # and comes back on the same address
    back = None
    while time.monotonic() < deadline:
        frame = grabber.get(timeout=0.5)
        with lock:
            if frame is not None and statuses.count("ok") >= 2:
                back = frame
                break
    grabber.stop()
    camera.stop()
    assert statuses[0] == "ok" and "lost" in statuses and "reconnecting" in statuses
    assert back is not None and back.image.shape == (64, 96, 3)
    assert grabber.outages >= 1


def test_motion_detector_still_moving_and_size_change():
    det = MotionDetector()
    base = np.full((360, 640, 3), 120, np.uint8)
    assert det.update(base).moving  # first frame: nothing to compare
    noisy = base.copy()
    noisy[::7, ::5] += 4  # sensor noise below the pixel threshold
    r = det.update(noisy)
    assert not r.moving and r.score < 0.001
    hand = noisy.copy()
    cv2.circle(hand, (300, 180), 60, (60, 90, 200), -1)
    r = det.update(hand)
    assert r.moving and r.score > 0.02
    assert not det.update(hand).moving
    r = det.update(np.full((720, 1280, 3), 120, np.uint8))
    assert r.moving and "size" in r.reason
    with pytest.raises(ValueError):
        det.update(np.zeros((10, 10, 4), np.uint8))


def test_unrelated_photos_are_told_from_the_frames_of_a_camera(tmp_path):
    from vision.sources import unrelated_photos

    photos, frames = tmp_path / "photos", tmp_path / "frames"
    photos.mkdir()
    frames.mkdir()
    for i, (w, h) in enumerate([(64, 48), (80, 60), (64, 48), (120, 90), (50, 70)]):
        cv2.imwrite(str(photos / f"p{i}.png"), _image(40 * i, w, h))
    for i in range(12):
        cv2.imwrite(str(frames / f"f{i:03d}.png"), _image(10 * i))
    cv2.imwrite(str(frames / "f004a.png"), _image(99, 32, 24))  # one bad frame of another size
    assert "differ in size" in unrelated_photos(open_source(str(photos)))
    assert unrelated_photos(open_source(str(frames))) is None
    assert unrelated_photos(open_source(str(photos / "p1.png"))) == "a single photo"
    # a frame of a few pixels (OpenCV cannot decode it at 1/8 size) gives no size hint, not an error
    cv2.imwrite(str(frames / "f005a.png"), _image(5, 3, 3))
    assert unrelated_photos(open_source(str(frames))) is None


class _StuckSource:
    """A live source whose second read never returns (a network camera stalled mid-read)."""

    live = True
    description = "stuck camera"

    def __init__(self):
        self.reads = 0
        self.reading = threading.Event()
        self.release = threading.Event()
        self.closed_while_reading = False
        self.closed = False

    def open(self):
        self._cap = object()

    def read(self):
        from vision.sources import Frame

        self.reads += 1
        if self.reads > 1:
            self.reading.set()
            self.release.wait()
            self.reading.clear()
            return None
        return Frame(_image(40, 96, 64), 0, 0.0)

    def close(self):
        self.closed_while_reading = self.reading.is_set()
        self.closed = True


def test_stopping_a_grabber_stuck_in_a_read_returns_and_leaves_the_source_alone():
    source = _StuckSource()
    grabber = FrameGrabber(source).start()
    assert grabber.get(timeout=5) is not None
    assert source.reading.wait(5)
    t0 = time.monotonic()
    grabber.stop(timeout_s=0.3)
    assert time.monotonic() - t0 < 2.0
    assert not source.closed  # never released under the reading thread
    source.release.set()  # the read returns: a later stop closes it
    grabber.stop(timeout_s=5)
    assert source.closed and not source.closed_while_reading
