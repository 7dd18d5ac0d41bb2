"""A real Mosquitto broker on loopback for the tournament-room tests and benchmark.

``.ci/run`` installs Debian's ``mosquitto``. :class:`Broker` writes a config
into a temporary folder (one listener on 127.0.0.1 and a free port, anonymous
clients or a password file, no persistence unless asked) and runs
``/usr/sbin/mosquitto -c`` on it; ``stop()`` kills it (SIGKILL by default, as a
crash would) and ``start()`` brings it back on the same port.
"""

from __future__ import annotations

import getpass
import pathlib
import socket
import subprocess
import time
from typing import Optional

MOSQUITTO = pathlib.Path("/usr/sbin/mosquitto")
MOSQUITTO_PASSWD = pathlib.Path("/usr/bin/mosquitto_passwd")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_tls_files(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    """A private CA and a server certificate for 127.0.0.1 (``openssl`` on PATH):
    ``{"ca", "cert", "key"}`` PEM paths in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    cert, key, csr = folder / "server.pem", folder / "server.key", folder / "server.csr"
    run = lambda *args: subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=room test CA",
        "-keyout", ca_key, "-out", ca)
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", csr)
    ext = folder / "san.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-days", "2",
        "-extfile", ext, "-out", cert)
    return {"ca": ca, "cert": cert, "key": key}


class Broker:
    """One Mosquitto process: ``port``, ``url`` (``mqtt://127.0.0.1:PORT``), ``start``, ``stop``.

    ``folder``: where its config (and password file) go. ``users``:
    ``{name: password}`` to require a login (anonymous clients refused).
    ``extra``: more config lines (a bridge, say). ``tls``: the files of
    :func:`make_tls_files` to serve MQTT over TLS only (``url`` is then
    ``mqtts://``). Raises ``FileNotFoundError`` when Mosquitto is not installed.
    """

    def __init__(self, folder: pathlib.Path, users: Optional[dict[str, str]] = None, extra: str = "",
                 port: Optional[int] = None, tls: Optional[dict[str, pathlib.Path]] = None) -> None:
        if not MOSQUITTO.exists():
            raise FileNotFoundError(f"Mosquitto is not installed at {MOSQUITTO} (.ci/run installs it)")
        self.folder = pathlib.Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"{'mqtts' if tls else 'mqtt'}://127.0.0.1:{self.port}"
        # run as whoever runs the tests (as root, Mosquitto would switch to its own user,
        # which cannot read a password file in the tests' private folder)
        lines = [f"user {getpass.getuser()}", f"listener {self.port} 127.0.0.1", "persistence false", "max_queued_messages 100000",
                 "max_inflight_messages 100", "log_dest stderr", "log_type error", "log_type warning"]
        if tls:
            lines += [f"cafile {tls['ca']}", f"certfile {tls['cert']}", f"keyfile {tls['key']}"]
        if users:
            passwd = self.folder / "passwd"
            passwd.write_text("")
            for name, password in users.items():
                subprocess.run([str(MOSQUITTO_PASSWD), "-b", str(passwd), name, password], check=True)
            lines += ["allow_anonymous false", f"password_file {passwd}"]
        else:
            lines.append("allow_anonymous true")
        self.config = self.folder / f"mosquitto-{self.port}.conf"
        self.config.write_text("\n".join(lines) + "\n" + extra)
        self.process: Optional[subprocess.Popen] = None

    def start(self, timeout: float = 10.0) -> "Broker":
        """Run the broker and wait until it accepts connections."""
        log = open(self.folder / f"mosquitto-{self.port}.log", "ab")
        self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.config)], stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited ({self.process.returncode}); see {self.folder}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout} s")

    def stop(self, kill: bool = True) -> None:
        """Kill (or terminate, ``kill=False``) the broker and wait for it."""
        if self.process is not None and self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                self.process.terminate()
            self.process.wait(10)
        self.process = None
