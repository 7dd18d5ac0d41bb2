"""Where the tournament room's MQTT broker is: ``mqtt://[USER[:PASSWORD]@]HOST[:PORT]``.

``mqtt://`` is plain MQTT (port 1883 by default), ``mqtts://`` MQTT over TLS
(port 8883; the system's CA store unless a CA file is given). The user name and
password, when the broker asks for them, come in the URL or from the
environment (``COMPANION_MQTT_USERNAME``, ``COMPANION_MQTT_PASSWORD``), so they
need not appear in a process list.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Mapping, Optional
from urllib.parse import unquote, urlsplit

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


@dataclasses.dataclass(frozen=True)
class HubAddress:
    """A broker address: ``host``, ``port``, ``tls`` (MQTT over TLS), ``username``
    and ``password`` (``None``: the broker asks for none), ``ca_file`` (a PEM file of
    the CAs to trust, ``None``: the system's)."""

    host: str
    port: int = 1883
    tls: bool = False
    username: Optional[str] = None
    password: Optional[str] = None
    ca_file: Optional[str] = None

    def url(self) -> str:
        """The address as a URL without the password (for logs and pages)."""
        user = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{host}:{self.port}"


def parse_hub_url(text: str, env: Optional[Mapping[str, str]] = None, ca_file: Optional[str] = None) -> HubAddress:
    """``"mqtt://HOST:1883"`` (or ``mqtts://``, with ``USER:PASSWORD@``) to a
    :class:`HubAddress`. ``env`` (default ``os.environ``) supplies
    ``COMPANION_MQTT_USERNAME`` / ``COMPANION_MQTT_PASSWORD`` when the URL has none.
    Raises ``ValueError`` with a sentence for anything else (another scheme, no
    host, a port outside 1-65535, a path)."""
    env = os.environ if env is None else env
    if not isinstance(text, str) or "://" not in text:
        raise ValueError(f"expected mqtt://HOST:PORT or mqtts://HOST:PORT, not {text!r}")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"{text!r}: the scheme must be mqtt:// or mqtts://, not {scheme}://")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{text!r}: a broker address has no path or query")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r}: the port is not a number in 1-65535") from None
    host = parts.hostname
    if not host:
        raise ValueError(f"{text!r}: no broker host")
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"{text!r}: the port is not a number in 1-65535")
    username = unquote(parts.username) if parts.username else env.get("COMPANION_MQTT_USERNAME") or None
    password = unquote(parts.password) if parts.password else env.get("COMPANION_MQTT_PASSWORD") or None
    return HubAddress(host=host, port=port or DEFAULT_PORTS[scheme], tls=scheme == "mqtts",
                      username=username, password=password, ca_file=ca_file)
