"""``companion read`` and ``companion calibrate``: the board reader on the command line.

``companion read IMAGE [--corners TLx,TLy,TRx,TRy,BRx,BRy,BLx,BLy] [--calibration FILE]
[--json] [--annotate OUT.png]`` reads one photo. Without ``--corners`` or a profile
the board is found automatically. ``--json`` prints ``Observation.to_dict()``.

``companion calibrate (IMAGE | --camera N) [--corners ...] [--aruco] [--learn
opening|reading] [--orientation Q] [--chessboard 'GLOB'] [--name NAME] [--out FILE]``
registers the board, learns the checker colours and writes a profile (JSON,
documented in ``calibration/README.md``). With ``--web [--host H] [--port P]`` it serves
the calibration page (:mod:`web.calibration`, :mod:`vision.calibration_desk`) instead: the
user drags the field's corners over the picture, learns the board from the opening
position, checks the reading drawn over it and saves; the command ends once saved.

OpenCV is imported inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from typing import Any

from companion.cli import UserError


#: The calibration page's port unless ``--port`` says otherwise (the dashboard's is 8080).
DEFAULT_PAGE_PORT = 8081


def register(subparsers: Any) -> None:
    """Add the ``read`` and ``calibrate`` sub-commands."""
    p = subparsers.add_parser("read", help="read the checkers (and dice/cube where available) from a board photo",
                              description="Read one board photo: counts and colours per point, bar, off.")
    # "--corners -4,2,..." (a negative first corner after a space) reads as a value too.
    p._negative_number_matcher = re.compile(r"^-\d[\d.,eE+-]*$")  # argparse's own hook for this
    p.add_argument("image", help="photo of the board (any format OpenCV reads)")
    p.add_argument("--corners", help="playing field corners TLx,TLy,TRx,TRy,BRx,BRy,BLx,BLy in pixels "
                                     "(use --corners=-4,2,... when the first is negative)")
    p.add_argument("--calibration", metavar="FILE", help="a profile written by `companion calibrate`")
    p.add_argument("--orientation", choices=["bottom-right", "bottom-left", "top-right", "top-left"],
                   help="image quadrant of the home board of the player whose numbering is used (default bottom-right)")
    p.add_argument("--roller", choices=["bottom", "top"],
                   help="image side of the player to roll: a die outside his right-hand board is cocked, and with "
                        "the profile's dice_sets the other player's set is not judged (default: not told)")
    p.add_argument("--json", action="store_true", help="print the reading as JSON")
    p.add_argument("--annotate", metavar="OUT.png", help="write the photo with the reading drawn over it")
    p.set_defaults(func=cmd_read)

    c = subparsers.add_parser("calibrate", help="register a board, learn its checker colours, write a profile",
                              description="Calibrate a board and camera; writes a JSON profile.")
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("image", nargs="?", help="a photo of the board as the camera sees it")
    src.add_argument("--camera", type=int, metavar="N", help="grab a frame from camera N (OpenCV VideoCapture)")
    c._negative_number_matcher = re.compile(r"^-\d[\d.,eE+-]*$")
    c.add_argument("--corners", help="playing field corners TLx,TLy,...,BLy (else ArUco or automatic)")
    c.add_argument("--aruco", action="store_true", help="find the field from ArUco markers 0-3 (DICT_4X4_50) at its corners")
    c.add_argument("--aruco-dictionary", default="DICT_4X4_50", help="ArUco dictionary (default DICT_4X4_50)")
    c.add_argument("--learn", choices=["opening", "reading", "none"], default=None,
                   help="opening: the frame shows the opening position; the checker colours are learned, and "
                        "when the shipped reader misreads it the reader learns this board (its checkers and points, "
                        "about a minute); reading: learn the checker colours from this "
                        "frame's reading (which you confirm by keeping the profile); none: learn nothing; "
                        "default reading")
    c.add_argument("--orientation", choices=["bottom-right", "bottom-left", "top-right", "top-left"],
                   default="bottom-right", help="image quadrant of the reference player's home board")
    c.add_argument("--chessboard", metavar="GLOB", help="photos of a printed chessboard for lens calibration")
    c.add_argument("--pattern", default="9x6", help="chessboard inner corners, columns x rows (default 9x6)")
    c.add_argument("--name", default="board", help="profile name (default board)")
    c.add_argument("--notes", default="", help="free text stored in the profile")
    c.add_argument("--out", metavar="FILE", help="where to write the profile (default calibration/NAME.json)")
    c.add_argument("--empty", metavar="IMAGE",
                   help="with --learn opening: also a photo of the same board, empty, from the same camera")
    c.add_argument("--learn-dice", action="store_true",
                   help="also learn the dice from this frame, the dice lying flat on the board: their size "
                        "(die_scale) and, with each player's dice on his own side (the bottom player's in the "
                        "bottom half), whose dice are whose by colour (dice_sets)")
    c.add_argument("--web", action="store_true",
                   help="calibrate on a page in the browser instead: drag the field's corners over the picture, "
                        "learn this board from the opening position, check the reading drawn over it, save; "
                        "ends once the profile is saved")
    c.add_argument("--host", default="127.0.0.1", help="with --web: the address to serve the page on (default "
                                                       "127.0.0.1; elsewhere viewing needs the token too)")
    c.add_argument("--port", type=int, default=DEFAULT_PAGE_PORT,
                   help=f"with --web: the port (default {DEFAULT_PAGE_PORT}; 0 picks a free one)")
    c.set_defaults(func=cmd_calibrate)


def _reader_for(args: argparse.Namespace, image):
    """``(BoardReader, Profile | None)`` for ``companion read``'s ``--calibration``, ``--corners``
    and ``--orientation``; raises ``UserError`` for a bad profile or corners."""
    from vision.profile import ProfileError, load_profile
    from vision.reader import BoardReader, point_model_for
    from vision.registration import RegistrationError, field_from_corners, parse_corners

    h, w = image.shape[:2]
    profile = None
    if args.calibration:
        try:
            profile = load_profile(args.calibration)
        except ProfileError as exc:
            raise UserError(str(exc)) from None
    orientation = args.orientation or (profile.orientation if profile else "bottom-right")
    try:
        if args.corners:
            corners = parse_corners(args.corners)
            field = field_from_corners(corners, (w, h), orientation,
                                       profile.geometry if profile else None,
                                       profile.camera if profile and profile.camera and tuple(profile.camera.image_size) == (w, h) else None)
            if profile:
                return BoardReader(field=field, settings=profile.settings, colours=profile.colours,
                                   orientation=orientation, point_model=point_model_for(profile)), profile
            return BoardReader(field=field, orientation=orientation), None
        if profile:
            import dataclasses

            return BoardReader.from_profile(dataclasses.replace(profile, orientation=orientation), (w, h)), profile
        return BoardReader(orientation=orientation), None
    except (RegistrationError, ValueError, OSError) as exc:  # a bad registration, learned head or model file
        raise UserError(str(exc)) from None


#: Picture formats ``--annotate`` can write.
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def cmd_read(args: argparse.Namespace) -> int:
    """``companion read``: print the reading of one photo (text or ``--json``)."""
    from vision.reader import ImageError, load_image
    from vision.registration import RegistrationError

    if args.annotate:
        out = pathlib.Path(args.annotate)
        if out.suffix.lower() not in PICTURE_SUFFIXES:
            raise UserError(f"--annotate needs a picture name ({', '.join(PICTURE_SUFFIXES)}), got {out.name!r}")
        if not out.parent.is_dir():
            raise UserError(f"cannot write {out}: folder {out.parent} does not exist")

    try:
        image = load_image(args.image)
    except ImageError as exc:
        raise UserError(str(exc)) from None
    reader, profile = _reader_for(args, image)
    try:  # dice and cube, where the dice reader and its models are installed
        from vision.dice_plugin import DicePlugin

        plugin = DicePlugin(dice_sets=profile.dice_sets if profile else None, roller=args.roller,
                            die_scale=profile.die_scale if profile else None,
                            marks=profile.board_marks if profile else None)
        reader.dice_reader, reader.cube_reader = plugin.dice, plugin.cube
    except (ImportError, FileNotFoundError, OSError):
        pass
    try:
        result = reader.read_full(image)
    except RegistrationError as exc:
        raise UserError(str(exc)) from None
    obs = result.observation
    if args.annotate:
        import cv2

        from vision.annotate import annotate

        pic = annotate(image, result.field, obs, result.checkers, reader.settings.work_scale, trays=reader.trays)
        if obs.dice or obs.cube is not None:
            from vision.dice_annotate import annotate as annotate_dice

            pic = annotate_dice(pic, obs.dice, obs.cube)
        out = pathlib.Path(args.annotate)
        try:
            ok = cv2.imwrite(str(out), pic)
        except cv2.error:
            ok = False
        if not ok:
            raise UserError(f"cannot write {out} (use a .png or .jpg name in an existing folder)")
    if args.json:
        print(json.dumps(obs.to_dict()))
    else:
        print(format_reading(obs))
    return 0


def format_reading(obs) -> str:
    """A short text picture of the reading: the top row (13-24) over the bottom row (12-1)."""
    def cell(p):
        pr = obs.points[p - 1]
        if p in obs.unreadable_points:
            return "  ?"
        if not pr.count:
            return "  ."
        return f"{pr.count:2d}{pr.colour[0].upper()}"

    top = " ".join(cell(p) for p in range(13, 19)) + " |" + " ".join(cell(p) for p in range(19, 25))
    bottom = " ".join(cell(p) for p in range(12, 6, -1)) + " |" + " ".join(cell(p) for p in range(6, 0, -1))
    lines = [
        "13-24: " + top,
        "12- 1: " + bottom,
        f"bar: light {obs.bar.light}, dark {obs.bar.dark}   off ({obs.off_source}): light {obs.off.light}, dark {obs.off.dark}",
    ]
    if obs.unreadable_points:
        lines.append("unreadable points: " + ", ".join(str(p) for p in obs.unreadable_points))
    lines.append(f"read in {obs.timings_ms.get('total', 0.0):.1f} ms")
    return "\n".join(lines)


def _profile_path(args: argparse.Namespace) -> pathlib.Path:
    """Where ``companion calibrate`` writes the profile: ``--out``, else calibration/NAME.json."""
    return pathlib.Path(args.out) if args.out else pathlib.Path("calibration") / f"{args.name}.json"


def _check_writable(out: pathlib.Path) -> None:
    """Make ``out``'s folder and write a scratch file in it; raise ``UserError`` when that fails
    (so that the page does not learn a board for a minute only to fail to save it)."""
    import tempfile

    if out.is_dir():
        raise UserError(f"cannot write {out}: it is a folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out.parent):
            pass
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None


def _calibrate_on_page(args: argparse.Namespace, image, corners, aruco, camera, empty) -> int:
    """``companion calibrate --web``: serve the calibration page (:mod:`web.calibration`) for
    this frame until the profile is saved; prints the page's address with the token."""
    import signal
    import threading
    import time

    from vision.calibration_desk import CalibrationDesk
    from web.calibration import create_calibration_app
    from web.server import serve, viewing_needs_token

    if args.learn not in (None, "opening"):
        raise UserError("the calibration page learns this board from the opening position: drop --learn "
                        f"{args.learn} or calibrate without --web")
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0-65535, got {args.port}")
    out = _profile_path(args)
    _check_writable(out)
    desk = CalibrationDesk(image, out, orientation=args.orientation, corners=corners, aruco=aruco, camera=camera,
                           name=args.name, notes=args.notes, empty_bgr=empty, learn_dice=args.learn_dice)
    app = create_calibration_app(desk, {"VIEW_REQUIRES_TOKEN": viewing_needs_token(args.host),
                                        "SESSION_COOKIE_NAME": f"companion_calibration_{args.port}"})
    try:
        server = serve(app, args.host, args.port, threads=8)
    except OSError as exc:
        raise UserError(f"cannot serve the calibration page on {args.host}:{args.port}: {exc.strerror or exc}") from None
    print(f"calibration page: {server.url}/?token={server.token}", flush=True)
    # Ctrl-C sets a flag that the loop below reads, so that no KeyboardInterrupt lands inside the
    # server's or the desk's locks; the interruption is raised once the server has stopped.
    interrupted = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.set())
    try:
        while not desk.wait_saved(0.5):
            if interrupted.is_set():
                break
        else:
            time.sleep(0.5)  # the browser's save request gets its answer before the server stops
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        server.stop()
    if interrupted.is_set() and not desk.wait_saved(0):
        raise KeyboardInterrupt
    print(f"profile written to {out}", file=sys.stderr)
    return 0


class ProgressLine:
    """A progress bar on one line of ``stream``: ``learning this board [#####.....]  50%``,
    rewritten in place. Called as ``progress(stage, fraction)`` (fraction 0..1). Silent when
    ``stream`` is not a terminal (a script reads the result, not the bar)."""

    def __init__(self, stream: Any, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.tty = bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, stage: str, fraction: float) -> None:
        if not self.tty:
            return
        fraction = min(max(float(fraction), 0.0), 1.0)
        done = int(round(fraction * self.width))
        print(f"\r{stage:26s} [{'#' * done}{'.' * (self.width - done)}] {100 * fraction:3.0f}%",
              end="\n" if fraction >= 1.0 else "", file=self.stream, flush=True)


def cmd_calibrate(args: argparse.Namespace) -> int:
    """``companion calibrate``: register, learn colours, write a profile."""
    import glob

    import cv2

    from vision.board_learning import learned_line
    from vision.calibrate import CalibrationError, calibrate_board, save_calibration
    from vision.reader import ImageError, load_image
    from vision.registration import RegistrationError, calibrate_chessboard, parse_corners

    if args.image:
        try:
            image = load_image(args.image)
        except ImageError as exc:
            raise UserError(str(exc)) from None
    else:
        cap = cv2.VideoCapture(args.camera)
        ok, image = cap.read() if cap.isOpened() else (False, None)
        cap.release()
        if not ok or image is None:
            raise UserError(f"cannot grab a frame from camera {args.camera}")
    camera = None
    if args.chessboard:
        files = sorted(glob.glob(args.chessboard))
        if not files:
            raise UserError(f"no files match {args.chessboard!r}")
        try:
            cols, rows = (int(v) for v in args.pattern.lower().split("x"))
        except ValueError:
            raise UserError(f"--pattern must look like 9x6, got {args.pattern!r}") from None
        try:
            camera = calibrate_chessboard([load_image(f) for f in files], (cols, rows))
        except (ImageError, RegistrationError) as exc:
            raise UserError(str(exc)) from None
    try:
        corners = parse_corners(args.corners) if args.corners else None
        aruco = {"dictionary": args.aruco_dictionary, "ids": [0, 1, 2, 3]} if args.aruco else None
        empty = None
        if args.empty:
            try:
                empty = load_image(args.empty)
            except ImageError as exc:
                raise UserError(str(exc)) from None
        if args.web:
            return _calibrate_on_page(args, image, corners, aruco, camera, empty)
        profile, obs, learned = calibrate_board(image, corners=corners, aruco=aruco, orientation=args.orientation,
                                                learn=args.learn or "reading", camera=camera, name=args.name, notes=args.notes,
                                                empty_bgr=empty, progress=ProgressLine(sys.stderr))
        if args.learn_dice:
            from vision.calibrate import learn_dice

            profile, note = learn_dice(image, profile)
            if note:
                print(note, file=sys.stderr)
    except (RegistrationError, CalibrationError) as exc:
        raise UserError(str(exc)) from None
    out = _profile_path(args)
    try:
        profile = save_calibration(profile, learned, out)
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(format_reading(obs))
    if learned is not None:
        print(learned_line(learned))
    if profile.dice_sets is not None:
        sets = profile.dice_sets.to_dict()
        print(f"dice sets (Lab): bottom {sets['bottom']}, top {sets['top']}")
    if profile.die_scale is not None:
        from vision.dice_size import own_size

        print(f"dice size: {profile.die_scale:.2f} x a tournament die on this board"
              + (" (searched at their own size)" if own_size(profile.die_scale) else ""))
    if profile.board_marks:
        print(f"board marks: {len(profile.board_marks)} places of this board look like a die "
              "(hinge screws, prints); no die is read there while they look as in this frame")
    print(f"profile written to {out}", file=sys.stderr)
    return 0
