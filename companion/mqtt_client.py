"""A paho-mqtt client set up for the tournament room (credentials, TLS, last will).

Both ends (a table's publisher, the hub) use :func:`make_client`: MQTT 3.1.1,
paho's version-2 callbacks, reconnection after 0.2 s doubling up to 5 s
(``loop_start`` reconnects forever on its own), and TLS / user name and
password from the :class:`~companion.hub_address.HubAddress`.
"""

from __future__ import annotations

from typing import Any, Optional

from companion.hub_address import HubAddress


def make_client(address: HubAddress, client_id: str, will: Optional[tuple[str, bytes]] = None,
                max_inflight: int = 100) -> Any:
    """A new ``paho.mqtt.client.Client`` for ``address`` (not yet connected).

    ``will``: ``(topic, payload)`` published retained with QoS 1 by the broker
    when this client vanishes. Raises ``ValueError`` for a CA file that cannot
    be read."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True,
                         protocol=mqtt.MQTTv311)
    client.reconnect_delay_set(min_delay=0.2, max_delay=5)
    client.max_inflight_messages_set(max_inflight)
    client.max_queued_messages_set(0)
    if address.username is not None:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        try:
            client.tls_set(ca_certs=address.ca_file)
        except (OSError, ValueError) as exc:
            raise ValueError(f"TLS for {address.url()}: {exc}") from None
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    return client


def connect(client: Any, address: HubAddress, keepalive: int = 10) -> None:
    """Start ``client``'s network thread and its first connection attempt; it keeps
    trying while the broker is away (no error is raised for an absent broker)."""
    client.connect_async(address.host, address.port, keepalive=keepalive)
    client.loop_start()
