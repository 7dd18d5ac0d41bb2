"""``companion leds check``: talk to the LED board once (bring-up, wiring check).

Connects (``--serial PORT`` or ``fake``), prints the board's HELLO, lights every
point in turn, then the three example scenes (illegal play, legal flash, cocked
dice) and clears the strip. pyserial is imported inside the handler.
"""

from __future__ import annotations

import argparse
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``leds check`` to the ``companion`` command line."""
    leds = subparsers.add_parser("leds", help="the LED board beside the table")
    sub = leds.add_subparsers(dest="leds_command", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="connect to the LED board and light a test pattern")
    check.add_argument("--serial", required=True, metavar="PORT|fake",
                       help="serial device of the board (e.g. /dev/ttyACM0), or 'fake' for the fake board")
    check.add_argument("--profile", metavar="JSON", help="calibration profile with a 'leds' section")
    check.add_argument("--timeout", type=float, default=8.0, help="seconds to wait for the board's HELLO")
    check.add_argument("--step", type=float, default=0.15, help="seconds per step of the test pattern (0: none)")
    check.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Handler of ``companion leds check``; raises UserError for a bad port or profile."""
    from companion.bus import EventBus
    from companion.cli import UserError
    from companion.events import CockedDiceEvent, LedsEvent, VerdictEvent
    from firmware_bridge.bridge import attach
    from firmware_bridge.layout import LayoutError, load_layout
    from firmware_bridge.messages import LedState, Pattern, SetLeds

    if args.timeout <= 0 or args.step < 0:
        raise UserError("--timeout must be positive and --step not negative")
    try:
        layout = load_layout(args.profile)
    except LayoutError as exc:
        raise UserError(str(exc)) from None
    bus = EventBus()
    frames: list[LedsEvent] = []
    bus.subscribe(lambda e: frames.append(e) if isinstance(e, LedsEvent) else None)
    handle = attach(bus, args.serial, layout, stream=sys.stderr,
                    fake_reset_delay=0.3, link_options={"scan": None})
    try:
        if not handle.link.wait_connected(args.timeout):
            raise UserError(f"no LED board answered on {args.serial} within {args.timeout:g} s")
        hello = handle.link.hello
        print(f"connected: {hello.describe()} on {handle.link.current_port}")
        if hello.led_count < layout.count:
            raise UserError(f"the board has {hello.led_count} LEDs but the layout needs {layout.count}")
        if args.step:
            handle.reporter.close()  # drive the strip directly during the chase
            for point in range(1, 25):
                leds = [LedState() for _ in range(layout.count)]
                leds[layout.point(point)] = LedState((255, 255, 255), Pattern.STEADY)
                handle.link.send(SetLeds(tuple(leds)))
                time.sleep(args.step)
            handle.link.send(SetLeds(tuple(LedState() for _ in range(layout.count))))
            from firmware_bridge.reporter import LedReporter

            handle.reporter = LedReporter(bus, handle.link, layout, min_interval=0.1)
            for event in (VerdictEvent(verdict="illegal", points_differing=(3, 5), points_played=(8, 5, 2)),
                          VerdictEvent(verdict="legal", points_played=(24, 18)),
                          CockedDiceEvent(player=0, dice=(3, 5))):
                bus.publish(event)
                time.sleep(max(args.step * 6, 0.2))
        bus.publish(VerdictEvent(verdict="corrected"))
        time.sleep(0.3)
        acked = [f.acked_ms for f in frames]
        if acked:
            print(f"{len(acked)} LED frames acknowledged, slowest {max(acked):.1f} ms")
        print(f"link: {handle.link.stats['sent']} frames sent, {handle.link.stats['retries']} retries")
    finally:
        handle.close()
    return 0
