"""A real MJPEG-over-HTTP camera for tests (``multipart/x-mixed-replace``, as IP
cameras serve it), on a free loopback port, that can leave the network and come
back on the same address."""

from __future__ import annotations

import http.server
import socketserver
import threading
import time
from typing import Callable, Iterable


class MjpegCamera:
    """Serves ``stream()`` (a fresh iterable of JPEG bytes for each connection)
    as one MJPEG stream per connection, ``interval_s`` seconds between frames;
    the connection ends when the iterable does. :attr:`served` counts the frames
    sent; :meth:`stop` takes the camera off the network, :meth:`start` brings it
    back on the same port; :attr:`url` is its stream address."""

    def __init__(self, stream: Callable[[], Iterable[bytes]], interval_s: float = 0.01) -> None:
        camera = self
        self.served = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                for data in stream():
                    try:
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data))
                        self.wfile.write(data + b"\r\n")
                    except OSError:  # the client went away (broken pipe, reset)
                        return
                    camera.served += 1
                    time.sleep(interval_s)

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        self._server_class, self._handler = Server, Handler
        self.port = 0
        self.start()

    def start(self) -> None:
        """Serve (again) on :attr:`port` (a free one the first time)."""
        self.server = self._server_class(("127.0.0.1", self.port), self._handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Take the camera off the network (its port is free again)."""
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        """The stream's address, ``http://127.0.0.1:PORT/stream.mjpg``."""
        return f"http://127.0.0.1:{self.port}/stream.mjpg"
