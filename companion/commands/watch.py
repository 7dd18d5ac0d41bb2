"""``companion watch``: the composition root of the running referee.

Builds the pipeline from the command line: frame source (camera, file, folder,
URL or the built-in demo) -> grabber thread -> motion -> board reader ->
stability filter -> referee -> bus; and the bus's outlets: the terminal log,
``--events-jsonl``, the match log (``--match-log``), the dashboard (``--web``),
the LED board (``--serial``) and the tournament room (``--hub``, ``--table``).
A finite source ends the run with exit code 0.
Heavy libraries are imported inside the handler.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from companion.cli import UserError

#: Where the dashboard is served unless ``--web`` says otherwise.
DEFAULT_WEB = "127.0.0.1:8080"
#: The tournament name in the room's topics unless ``--tournament`` says otherwise.
DEFAULT_TOURNAMENT = "room"


def _host_port_text(text: str) -> str:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return text


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def register(subparsers: Any) -> None:
    """Add the ``watch`` sub-command."""
    p = subparsers.add_parser(
        "watch",
        help="referee a game from a camera, a video, a folder of frames or the demo",
        description="Watch a backgammon board and judge every roll, play and cube action.",
    )
    p.add_argument("--source", default="demo",
                   help="demo (default), a camera index (0), a video file, a folder of images, or an rtsp:// / http:// URL")
    p.add_argument("--calibration", metavar="FILE", help="board profile from `companion calibrate` (corners, colours)")
    p.add_argument("--corners", metavar="X,Y,...", help="the playing field's corners TL,TR,BR,BL in image pixels (as `companion read --corners`)")
    p.add_argument("--match-length", type=int, default=5, metavar="N", help="match to N points; 0 for a money session (default 5)")
    p.add_argument("--web", type=_host_port_text, default=None, metavar="HOST:PORT",
                   help="serve the dashboard here (default 127.0.0.1:8080; port 0 picks a free one)")
    p.add_argument("--no-web", action="store_true", help="do not serve the dashboard")
    p.add_argument("--web-open", action="store_true",
                   help="on a non-loopback --web address, let anyone on the network view the dashboard "
                        "without the token (actions still need it)")
    p.add_argument("--serial", metavar="PORT|fake", help="drive the LED board on this serial port ('fake': a simulated board)")
    p.add_argument("--events-jsonl", metavar="FILE", help="write every event as one JSON line to FILE ('-': standard output)")
    p.add_argument("--match-log", metavar="FILE", help="SQLite match log (resumed when it holds the same match)")
    p.add_argument("--policy", choices=("mandatory_correction", "opponent_option"), default="mandatory_correction",
                   help="illegal-play policy (default mandatory_correction)")
    p.add_argument("--die-on-checker", choices=("flat_ok", "cocked"), default="flat_ok",
                   help="a die resting flat on a checker: fine (USBGF 2017, default) or cocked (older rules)")
    p.add_argument("--mode", choices=("tournament", "teaching"), default="tournament")
    p.add_argument("--analysis-plies", type=int, default=2, metavar="N",
                   help="teaching mode: GNU Backgammon judges every play and cube decision at N plies (0-4, default 2)")
    p.add_argument("--no-analysis", action="store_true", help="teaching mode without GNU Backgammon's judgement")
    p.add_argument("--gnubg", default="/usr/games/gnubg", metavar="PATH", help="the gnubg program (default /usr/games/gnubg)")
    p.add_argument("--bottom-colour", choices=("light", "dark"), help="colour of the player at the image's bottom (default: from the first board)")
    p.add_argument("--still-ms", type=_non_negative, default=None, help="ms the board must be still before a reading counts (default 30; the frame in which "
                        "the dice are picked up is judged at once when nothing else in the picture changed)")
    p.add_argument("--votes", type=int, default=None, help="frames voting on each reading (default 3)")
    p.add_argument("--fps", type=float, default=None, help="frame rate of a folder of images (default 30; the demo 10)")
    p.add_argument("--speed", type=_non_negative, default=None,
                   help="play a file or folder at this multiple of real time (0: as fast as possible; default 0, demo 1)")
    p.add_argument("--stills", action="store_true",
                   help="the frames are unrelated photos: read each one on its own (no motion, no votes, board found per "
                        "photo); automatic for a single image and for a folder of images of different sizes")
    room = p.add_argument_group("tournament room", "publish this table to a hub over an MQTT broker (`companion hub`)")
    room.add_argument("--hub", metavar="URL", help="the room's broker: mqtt://HOST:1883 or mqtts://HOST:8883 "
                      "(USER:PASSWORD@ in the URL or COMPANION_MQTT_USERNAME / COMPANION_MQTT_PASSWORD)")
    room.add_argument("--table", type=int, metavar="N", help="this table's number in the room (1-999; needed with --hub)")
    room.add_argument("--tournament", default=None, metavar="NAME",
                      help=f"the tournament's name in the topics (default {DEFAULT_TOURNAMENT})")
    room.add_argument("--room-config", metavar="FILE",
                      help='JSON file with a "room" object (hub, table, tournament, hub_ca, hub_outbox, hub_token); '
                           "the same object in the --calibration profile is read too; the command line wins")
    room.add_argument("--hub-ca", metavar="FILE", help="PEM file of the CAs to trust for mqtts:// (default: the system's)")
    room.add_argument("--hub-outbox", metavar="FILE",
                      help="SQLite outbox where events wait for the broker (default: beside --match-log, else in the cache)")
    room.add_argument("--hub-token", metavar="TOKEN", help="the director's token: commands from the hub need it "
                      "(default COMPANION_HUB_TOKEN; none: the table takes no commands)")
    p.add_argument("-v", "--verbose", action="store_true", help="show every stable reading (on for the demo)")
    p.add_argument("--keyboard", choices=("auto", "on", "off"), default="auto", help="read keyboard overrides from standard input")
    p.set_defaults(func=run)


def _open_outlets(args: argparse.Namespace, bus: Any, stack: list) -> None:
    from companion.terminal import JsonLines, TerminalLog

    human = sys.stdout
    if args.events_jsonl:
        if args.events_jsonl == "-":
            stream = sys.stdout
            human = sys.stderr
        else:
            try:
                stream = open(args.events_jsonl, "w", encoding="utf-8")
            except OSError as exc:
                raise UserError(f"cannot write {args.events_jsonl}: {exc.strerror}") from None
            stack.append(stream.close)
        bus.subscribe(JsonLines(stream))
    bus.subscribe(TerminalLog(human, verbose=args.verbose or (args.source == "demo" and not args.events_jsonl)))


def make_frame_reader(calibration: Any = None, die_on_checker: str = "flat_ok", corners: Any = None,
                      register_each_frame: bool = False):
    """The reader of ``watch``: image ((H, W, 3) uint8 BGR) -> Observation.

    ``vision.reader.BoardReader`` with the calibration profile (``--calibration``),
    the field's four corners (``corners``: (4, 2) image pixels TL, TR, BR, BL, as
    ``--corners``) or, without either, the board found in the first frame and kept (the
    camera is fixed; it is found again when a frame cannot be registered or its
    size changes), or found in every frame (``register_each_frame``: a folder
    of unrelated photos); the dice and the cube through ``vision.dice_plugin``
    when its models are installed (the dice's size learned on the first flat pair
    when the profile has none, except for unrelated photos). Raises ``UserError`` for a bad calibration
    file."""
    try:
        from vision.reader import BoardReader
    except ImportError as exc:  # the board reader has not landed in this build
        raise UserError(f"the board reader is not available ({exc})") from None
    plugin = None
    try:
        from vision.cocked import CockedRules
        from vision.dice_plugin import DicePlugin

        # the dice's size is learned on the game's first flat pair unless the profile knows it
        # (not across unrelated photos, each of its own board and dice)
        plugin = DicePlugin(rules=CockedRules(on_checker_cocked=die_on_checker == "cocked"),
                            learn_size=not register_each_frame)
    except (ImportError, FileNotFoundError):
        plugin = None
    extra = {} if plugin is None else {"dice_reader": plugin.dice, "cube_reader": plugin.cube}
    profile = None
    if calibration:
        try:
            from vision.profile import load_profile

            profile = load_profile(calibration)
            reader = BoardReader.from_profile(profile, **extra)
        except (OSError, ValueError) as exc:  # a bad profile, or its learned head unreadable
            raise UserError(f"calibration {calibration}: {exc}") from None
        if plugin is not None:
            plugin.dice_sets = profile.dice_sets  # whose dice are whose, by colour
            plugin.die_scale = profile.die_scale  # small dice searched at their own size
            plugin.reader.marks = profile.board_marks  # the board's own die-like spots
    else:
        reader = BoardReader(**extra)
    fixed_corners = None if corners is None else [[float(x), float(y)] for x, y in corners]

    def new_frame() -> None:
        # Each read is a new frame for the dice plug-in's scan (DicePlugin.new_frame).
        if plugin is not None:
            plugin.new_frame()

    def read(image: Any):
        new_frame()
        h, w = image.shape[:2]
        if register_each_frame and fixed_corners is None and profile is None:
            reader.field = None
            return reader.read(image)
        if reader.field is None or tuple(reader.field.image_size) != (w, h):
            if fixed_corners is not None:
                from vision.registration import field_from_corners

                reader.field = field_from_corners(fixed_corners, (w, h), reader.orientation)
            elif profile is not None and getattr(profile, "corners", None) is not None:
                reader.field = profile.field((w, h))
            else:
                reader.field = None
                reader.field = reader.register(image)  # RegistrationError (a ValueError): a bad frame
        result = reader.read_full(image)
        if plugin is not None and die_on_checker == "cocked":
            # for the on-checker test of the next frames
            plugin.checkers = _checker_discs(result, reader.settings.work_scale)
        return result.observation

    def set_roller(side: Any) -> None:
        """The image side (``"bottom"``/``"top"``) of the player whose roll comes
        next, or ``None`` (unknown): a die outside that player's right-hand
        board is then read as cocked (``vision.cocked.judge_roll``)."""
        if plugin is not None:
            plugin.roller = side

    def points_under(boxes: Any):
        """The points (1..24) and ``"bar"`` that objects in ``boxes`` ((x0, y0,
        x1, y1) image pixels) may hide or spoil in a reading
        (:func:`vision.point_crops.points_under`), or ``None`` when there is no
        registration yet (for the session's check that only dice moved)."""
        if reader.field is None:
            return None
        from vision.point_crops import points_under as under

        return under(reader.field, boxes)

    def places_under(boxes: Any):
        """Point -> the checker places (0 at its base) that objects in ``boxes`` ((x0, y0,
        x1, y1) image pixels) lie over (:func:`vision.point_crops.places_under`), or ``None``
        when there is no registration yet."""
        if reader.field is None:
            return None
        from vision.point_crops import places_under as places

        return places(reader.field, boxes)

    read.points_under = points_under  # type: ignore[attr-defined]
    read.places_under = places_under  # type: ignore[attr-defined]
    read.set_roller = set_roller  # type: ignore[attr-defined]
    read.board_reader = reader  # type: ignore[attr-defined]
    read.dice_plugin = plugin  # type: ignore[attr-defined]
    return read


def _checker_discs(result: Any, work_scale: float) -> list:
    """The checkers of a ``vision.reader.ReadResult`` as image discs ``(x, y, radius)``
    in pixels (checker centres come at the reader's ``work_scale`` of the field)."""
    import numpy as np

    field = result.field
    discs = []
    radius = field.checker_size[0] / 2.0
    for c in result.checkers.checkers:
        x0, y0 = c.x / work_scale, c.y / work_scale
        pts = np.array([[x0, y0, 1.0], [x0 + radius, y0, 1.0]]) @ field.inverse.T
        (x, y), (x1, y1) = pts[:, :2] / pts[:, 2:3]
        discs.append((float(x), float(y), float(((x1 - x) ** 2 + (y1 - y) ** 2) ** 0.5)))
    return discs


def _make_reader(args: argparse.Namespace):
    """:func:`make_frame_reader` from the command line's options."""
    corners = getattr(args, "corners", None)
    if corners is not None:
        from vision.registration import parse_corners

        try:
            corners = parse_corners(corners)
        except ValueError as exc:
            raise UserError(f"--corners: {exc}") from None
    return make_frame_reader(getattr(args, "calibration", None), getattr(args, "die_on_checker", "flat_ok"), corners,
                             register_each_frame=bool(getattr(args, "stills", False)))


def _start_web(args: argparse.Namespace, session: Any, stack: list, say) -> None:
    """Serve the dashboard (``web.start_dashboard``) unless ``--no-web``."""
    if args.no_web:
        return
    try:
        from web import start_dashboard
    except ImportError as exc:
        say(f"dashboard not available ({exc}); running without it")
        return
    address = args.web or DEFAULT_WEB
    try:
        server = start_dashboard(session, address, open_viewing=args.web_open, say=say)
    except OSError as exc:
        if args.web is None:  # the default address is busy: go on without the dashboard
            say(f"dashboard not started: {address} is not available ({exc.strerror or exc}); use --web HOST:PORT")
            return
        raise UserError(f"cannot serve the dashboard on {address}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UserError(f"--web: {exc}") from None
    stack.append(server.stop)


def _start_leds(args: argparse.Namespace, bus: Any, session: Any, stack: list, say) -> None:
    """Attach the LED board (``firmware_bridge.attach``); its buttons act on the
    session: ``undo`` undoes the last verdict, ``confirm`` accepts the board as
    it stands while the referee waits for a correction."""
    if not args.serial:
        return
    try:
        from firmware_bridge import attach as leds_attach
    except ImportError as exc:
        raise UserError(f"the LED board bridge is not available ({exc})") from None
    try:
        handle = leds_attach(bus, args.serial, teaching=args.mode == "teaching", profile=args.calibration)
    except (OSError, ValueError) as exc:
        raise UserError(f"serial {args.serial}: {exc}") from None
    closer = getattr(handle, "close", None) or getattr(handle, "stop", None)
    if closer is not None:
        stack.append(closer)
    # The session published its first TurnEvent before the board subscribed.
    handle.show(session.referee.turn_event())

    def on_button(event: Any) -> None:
        if getattr(event, "type", "") != "button" or getattr(event, "action", "press") != "press":
            return
        try:
            if event.button == "undo":
                session.undo(by="led_board")
            elif event.button == "confirm":
                session.confirm(by="led_board")
        except ValueError as exc:
            say(f"LED board {event.button}: {exc}")

    bus.subscribe(on_button)


def _start_analysis(args: argparse.Namespace, bus: Any, session: Any, stack: list) -> None:
    """GNU Backgammon's judgement after each verdict (``companion.analysis.service``)
    and its review of the match at each game end, only while the session is in
    teaching mode; gnubg starts at the first decision to judge (never in
    tournament mode). A 4-ply analysis may take 15 s: its time limit is longer."""
    if args.no_analysis:
        return
    from companion.analysis.analyst import Analyst
    from companion.analysis.engine import GnubgEngine
    from companion.analysis.service import AnalysisService

    from companion.mat import export_mat

    engine = GnubgEngine(args.gnubg, timeout_s=30.0 if args.analysis_plies <= 3 else 300.0)
    service = AnalysisService(bus, Analyst(engine, plies=args.analysis_plies),
                              teaching=lambda: session.referee.settings.mode == "teaching",
                              store_path=args.match_log,
                              match_record=lambda: export_mat(session.referee.match),
                              current_match=lambda: session.referee.match)
    stack.append(engine.close)
    stack.append(service.close)


def _has_room(path: str) -> bool:
    """True when the JSON file at ``path`` has a ``"room"`` key (an unreadable
    profile is left to the board reader to report)."""
    import json

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "room" in data


def hub_options(args: argparse.Namespace) -> Any:
    """Check ``--hub``/``--table``/``--tournament`` (completed from ``--room-config``
    and the profile's ``"room"``, see :mod:`companion.room_settings`) before
    anything starts: the :class:`companion.hub_address.HubAddress`, or ``None``
    without a hub. Fills ``args`` with the merged values. Raises ``UserError``
    with one sentence."""
    from companion.hub_address import parse_hub_url
    from companion.hub_topics import check_table, check_tournament
    from companion.room_settings import ROOM_KEYS, merge_room_settings, read_room_settings

    sources = []
    try:
        if getattr(args, "room_config", None):
            sources.append(read_room_settings(args.room_config))
        if getattr(args, "calibration", None) and _has_room(args.calibration):
            sources.append(read_room_settings(args.calibration))
    except ValueError as exc:
        raise UserError(f"room settings: {exc}") from None
    merged = merge_room_settings({k: getattr(args, k, None) for k in ROOM_KEYS}, *sources)
    for key, value in merged.items():
        setattr(args, key, value)
    if args.tournament is None:
        args.tournament = DEFAULT_TOURNAMENT
    if not getattr(args, "hub", None):
        if getattr(args, "table", None) is not None:
            raise UserError("--table needs --hub (the room's broker)")
        return None
    if args.table is None:
        raise UserError("--hub needs --table N (this table's number in the room)")
    try:
        check_table(args.table)
        check_tournament(args.tournament)
        return parse_hub_url(args.hub, ca_file=args.hub_ca)
    except ValueError as exc:
        raise UserError(f"--hub: {exc}") from None


def _start_hub(args: argparse.Namespace, address: Any, session: Any, stack: list, say) -> None:
    """Publish the table to the room (``companion.hub_publisher.TablePublisher``)."""
    import os

    from companion.hub_outbox import Outbox, OutboxError, default_outbox_path
    from companion.hub_publisher import TablePublisher

    path = args.hub_outbox or default_outbox_path(args.tournament, args.table, args.match_log)
    try:
        outbox = Outbox(path)
    except (OutboxError, OSError) as exc:
        raise UserError(f"--hub-outbox: {exc}") from None
    token = args.hub_token or os.environ.get("COMPANION_HUB_TOKEN") or None
    try:
        publisher = TablePublisher(address, args.tournament, args.table, session, outbox, token=token)
    except ValueError as exc:
        outbox.close()
        raise UserError(f"--hub: {exc}") from None
    publisher.start()
    stack.append(outbox.close)
    stack.append(publisher.stop)
    say(f"room: table {args.table} of {args.tournament} publishing to {address.url()} "
        f"(outbox {path}; director commands {'on' if token else 'off'})")


def _keyboard(session: Any, stop: threading.Event, out) -> threading.Thread:
    from companion.terminal import KEYBOARD_HELP, run_command

    def loop() -> None:
        print(KEYBOARD_HELP, file=out, flush=True)
        for line in sys.stdin:
            answer, quit_ = run_command(session, line)
            if answer:
                print(answer, file=out, flush=True)
            if quit_:
                stop.set()
                return
            if stop.is_set():
                return

    thread = threading.Thread(target=loop, name="keyboard", daemon=True)
    thread.start()
    return thread


def run(args: argparse.Namespace) -> int:
    """Run the referee until the source ends (exit 0) or the user quits."""
    from companion.bus import EventBus
    from companion.referee import RefereeError
    from companion.session import Session
    from companion.stability import StabilitySettings
    from companion.table import TableLayout
    from vision.sources import FrameGrabber, SourceError, open_source

    import cv2

    try:  # OpenCV's own warnings (a camera index that is not there) would drown the referee's lines
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except AttributeError:
        pass
    hub_address = hub_options(args)
    if args.match_length < 0:
        raise UserError(f"--match-length must be >= 0, got {args.match_length}")
    if not 0 <= args.analysis_plies <= 4:
        raise UserError(f"--analysis-plies is 0 to 4, not {args.analysis_plies}")
    if args.votes is not None and args.votes < 1:
        raise UserError(f"--votes must be at least 1, got {args.votes}")
    if args.fps is not None and args.fps <= 0:
        raise UserError(f"--fps must be positive, got {args.fps}")
    demo = args.source == "demo"
    fps = args.fps if args.fps is not None else 30.0
    source_spec = args.source
    speed = args.speed if args.speed is not None else (1.0 if demo else 0.0)
    if demo:
        from companion.demo import DEMO_FPS, demo_folder

        fps = args.fps if args.fps is not None else DEMO_FPS
        if not args.calibration and not args.corners:
            from companion.demo import demo_corners_arg

            args.corners = demo_corners_arg()  # the demo's camera is calibrated
        try:
            source_spec = str(demo_folder())
        except OSError as exc:
            raise UserError(f"cannot build the demo recording: {exc}") from None
    try:
        source = open_source(source_spec, fps=fps)
    except SourceError as exc:
        raise UserError(str(exc)) from None

    from vision.sources import unrelated_photos

    photos_why = None if (args.stills or demo) else unrelated_photos(source)
    if photos_why:
        args.stills = True
    window = (1 if args.stills else 3) if args.votes is None else args.votes
    stability = StabilitySettings(
        still_ms=(0.0 if args.stills else 30.0) if args.still_ms is None else args.still_ms,
        window=window,
        min_frames=min(2, window),
    )
    layout = None
    if args.bottom_colour:
        layout = TableLayout((args.bottom_colour, "dark" if args.bottom_colour == "light" else "light"))
    reader = _make_reader(args)
    bus = EventBus()
    closers: list = []
    try:
        _open_outlets(args, bus, closers)
        human = sys.stderr if args.events_jsonl == "-" else sys.stdout

        def say(text: str) -> None:
            print(text, file=human, flush=True)

        if photos_why:
            say(f"{photos_why}: each photo is read on its own (as --stills)")

        try:
            session = Session(
                bus,
                reader=reader,
                match_settings={
                    "match_length": args.match_length,
                    "illegal_play_policy": args.policy,
                    "die_on_checker": args.die_on_checker,
                    "mode": args.mode,
                    "layout": layout,
                },
                stability=stability,
                match_log=args.match_log,
                motion=not args.stills,
                resize_to_first=not args.stills,
                report_every_frame=args.stills,
            )
        except (RefereeError, ValueError) as exc:
            raise UserError(str(exc)) from None
        _start_analysis(args, bus, session, closers)
        _start_web(args, session, closers, say)
        _start_leds(args, bus, session, closers, say)
        if hub_address is not None:
            _start_hub(args, hub_address, session, closers, say)
        stop = threading.Event()
        keyboard = args.keyboard == "on" or (args.keyboard == "auto" and sys.stdin is not None and sys.stdin.isatty())
        if keyboard:
            _keyboard(session, stop, human)
        grabber = FrameGrabber(source, on_status=session.on_source_status)
        try:
            grabber.start()
        except SourceError as exc:
            raise UserError(str(exc)) from None
        closers.append(grabber.stop)
        pace = None
        if speed > 0 and not source.live:
            import time

            t_start = time.monotonic()

            def pace(frame: Any) -> None:
                wait = t_start + frame.timestamp_ms / 1000.0 / speed - time.monotonic()
                if wait > 0:
                    stop.wait(wait)

        session.run(grabber, stop, pace=pace)
        st = session.state()
        if args.stills and session.photo_status:
            say("photos: " + ", ".join(f"{n} {k}" for k, n in sorted(session.photo_status.items())))
        elif not args.stills and not source.live and st["frames"]["seen"] and session.frames_read == 0:
            say("no still board was seen: if these frames are unrelated photos, use --stills")
        say(f"done: {st['frames']['seen']} frames, score {st['score'][0]}-{st['score'][1]}")
        return 0
    finally:
        for close in reversed(closers):
            try:
                close()
            except Exception:  # noqa: BLE001 - closing must not hide the real outcome
                pass
