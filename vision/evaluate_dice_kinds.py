"""Leave-one-dice-kind-out: how well are dice of a kind read by networks that never saw that kind?

``python -m vision.evaluate_dice --dice-kind-out ROOT [--rendered N]`` reads, for each folder
``ROOT/KIND`` (``KIND`` a name of :data:`vision.render_dice.DIE_STYLES`), rendered registered boards
whose dice are all of that kind, twice in one run:

- **without the kind**: the registered-board detector ``ROOT/KIND/dice_detector.onnx`` and the value
  classifier ``ROOT/KIND/dice_classifier.onnx``, trained with
  ``python -m vision.training.train_dice --without-dice-kind KIND`` (the shipped recipes otherwise);
  a file missing there is taken from the shipped models;
- **with the kind**: the shipped float32 networks (``dice_detector_field.onnx``,
  ``dice_classifier.onnx``), which were trained on every kind.

The real photos of the training fold are in both trainings: dice of the two photo datasets
(white, coloured, marbled and translucent) are not left out, so a kind close to a photographed one
is not fully unseen. Boards: :func:`vision.render_roll.render_roll_on_board` with dice of 0.3-0.8
of a checker's diameter, half of the rolls with a cocked die, seed ``seed + k`` for the k-th kind
of ``DIE_STYLES``.
"""

from __future__ import annotations

import pathlib
from typing import Any

#: the dice's side over a checker's diameter on the evaluation boards
DIE_TO_CHECKER = (0.3, 0.8)


def kind_reader(folder: pathlib.Path | None) -> Any:
    """A :class:`vision.dice.DiceReader` on the shipped models whose registered-board detector and
    value classifier are replaced by ``folder``'s ``dice_detector.onnx`` and
    ``dice_classifier.onnx`` where present (``folder`` None: the shipped float32 networks).
    Raises ``ValueError`` for an unreadable network."""
    from vision.dice import DiceReader, DiceSettings
    from vision.onnx_model import load_onnx

    reader = DiceReader(settings=DiceSettings(field_detector="dice_detector_field.onnx"))
    if folder is not None:
        if (folder / "dice_detector.onnx").is_file():
            reader.field_detector = load_onnx(folder / "dice_detector.onnx")
        if (folder / "dice_classifier.onnx").is_file():
            reader.classifier = load_onnx(folder / "dice_classifier.onnx")
    return reader


def evaluate_dice_kinds(root: pathlib.Path, boards: int, seed: int = 7300) -> dict[str, dict[str, Any]]:
    """{kind: {"without": figures, "with": figures}} for every folder of ``root`` named after a
    kind of dice; figures as :func:`vision.render_roll.evaluate_cocked_rendered` returns them,
    on ``boards`` boards of that kind alone. Raises ``ValueError`` when ``root`` holds no such
    folder or a network there is unreadable."""
    from vision.render_dice import DIE_STYLES
    from vision.render_roll import evaluate_cocked_rendered

    kinds = [(k, s) for k, s in enumerate(DIE_STYLES) if (root / s.name).is_dir()]
    if not kinds:
        raise ValueError(f"{root} has no folder named after a kind of dice "
                         f"({', '.join(s.name for s in DIE_STYLES)})")
    shipped = kind_reader(None)
    out = {}
    for k, style in kinds:
        held_out = kind_reader(root / style.name)
        out[style.name] = {
            label: evaluate_cocked_rendered(boards, reader, seed=seed + k, dice_styles=(style,),
                                            die_to_checker=DIE_TO_CHECKER)
            for label, reader in (("without", held_out), ("with", shipped))}
    return out


def print_dice_kinds(results: dict[str, dict[str, Any]]) -> None:
    """Print :func:`evaluate_dice_kinds`'s figures as a table, one row per kind: flat rolls read
    exactly, dice found, values right among those found, cocked rolls caught (the referee's
    verdict per roll), each trained without the kind / with it."""

    def share(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    print("== leave-one-dice-kind-out: rendered boards with dice of one kind, read by networks trained "
          "without that kind / with it")
    print(f"{'kind':>16} {'flat rolls exact':>21} {'dice found':>15} {'values right':>15} {'cocked rolls':>15}")
    for kind, pair in results.items():
        wo, wi = pair["without"], pair["with"]
        n = wo["rolls"]["flat"]
        exact = f"{wo['rolls']['flat_exact']}/{n} / {wi['rolls']['flat_exact']}/{n}"
        print(f"{kind:>16} {exact:>21} "
              f"{share(wo['found_rate']) + ' / ' + share(wi['found_rate']):>15} "
              f"{share(wo['value_accuracy']) + ' / ' + share(wi['value_accuracy']):>15} "
              f"{share(wo['rolls']['recall']) + ' / ' + share(wi['rolls']['recall']):>15}")
