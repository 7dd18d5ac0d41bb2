"""``companion dice IMAGE [--json] [--annotate OUT.png]``: read the dice (and cube) in any photo.

JSON form: ``{"dice": [{"value": 5, "center": [x, y], "box": [x0, y0, x1, y1],
"confidence": 0.97}, ...], "cube": {"value": 2, "place": "top", "center": [x, y],
"confidence": 0.9} | null}`` in image pixels. Cocked dice need a registered board: see
``companion read``.
"""

from __future__ import annotations

import argparse
import json
import pathlib


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``dice`` sub-command."""
    p = subparsers.add_parser("dice", help="read the dice and the doubling cube in a photo",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image", help="photo (any format OpenCV reads)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--annotate", metavar="OUT.png", help="write the photo with what was seen drawn on it")
    p.add_argument("--models", metavar="DIR", help="folder with the ONNX models (default vision/models)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``companion dice``; raises :class:`companion.cli.UserError` for bad input."""
    import cv2

    from companion.cli import UserError
    from vision.cube import CubeReader, read_dice_and_cube
    from vision.dice import DiceReader, ImageError

    path = pathlib.Path(args.image)
    if path.is_dir():
        raise UserError(f"{path} is a folder: give one image file")
    if not path.is_file():
        raise UserError(f"no such image file: {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"cannot read {path} as an image")
    if args.annotate:
        out_dir = pathlib.Path(args.annotate).resolve().parent
        if not out_dir.is_dir():
            raise UserError(f"folder for --annotate does not exist: {out_dir}")
    try:
        reader = DiceReader(args.models)
        try:
            cube_reader = CubeReader(args.models)
        except FileNotFoundError:
            cube_reader = None
    except (FileNotFoundError, ValueError) as exc:  # a missing or unreadable network
        raise UserError(str(exc)) from None
    try:
        dice, cube = read_dice_and_cube(image, None, reader=reader, cube_reader=cube_reader)
    except ImageError as exc:  # e.g. a photo a few pixels wide
        raise UserError(f"{path}: {exc}") from None
    if args.json:
        print(json.dumps({
            "dice": [{"value": d.value, "center": [round(d.center[0], 1), round(d.center[1], 1)],
                      "box": [round(v, 1) for v in d.box], "confidence": round(d.confidence, 3)} for d in dice],
            "cube": None if cube is None else cube.to_dict(),
        }))
    else:
        if not dice:
            print("no dice seen")
        for d in dice:
            print(f"die {d.value} at ({d.center[0]:.0f}, {d.center[1]:.0f}) confidence {d.confidence:.2f}")
        if cube is not None:
            print(f"cube {cube.value} ({cube.place}) at ({cube.center[0]:.0f}, {cube.center[1]:.0f}) "
                  f"confidence {cube.confidence:.2f}")
    if args.annotate:
        from vision.dice_annotate import annotate

        if not cv2.imwrite(str(args.annotate), annotate(image, dice, cube)):
            raise UserError(f"cannot write {args.annotate}")
    return 0
