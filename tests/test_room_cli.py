"""The room options of ``companion watch`` and ``companion hub``: one line and exit 2 for
bad values, and the settings read from ``--room-config`` and the board profile."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from companion.cli import UserError
from companion.commands.watch import hub_options
from companion.room_settings import merge_room_settings, read_room_settings


def run(repo_root, *args):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=repo_root, env=env,
                          capture_output=True, text=True, timeout=120)


def namespace(**kw):
    base = dict(hub=None, table=None, tournament=None, hub_ca=None, hub_outbox=None, hub_token=None,
                room_config=None, calibration=None)
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize("args, message", [
    (["watch", "--hub", "mqtt://127.0.0.1:1883"], "--hub needs --table N"),
    (["watch", "--table", "3"], "--table needs --hub"),
    (["watch", "--hub", "http://127.0.0.1", "--table", "3"], "the scheme must be mqtt:// or mqtts://"),
    (["watch", "--hub", "mqtt://127.0.0.1:1883", "--table", "1000"], "a table number is 1-999"),
    (["watch", "--hub", "mqtt://127.0.0.1:1883", "--table", "2", "--tournament", "a/b"], "a tournament name"),
    (["hub", "--broker", "mqtt://h:0"], "the port is not a number in 1-65535"),
    (["hub", "--tournament", "#"], "a tournament name"),
])
def test_bad_room_options_are_one_line_and_exit_2(repo_root, args, message):
    r = run(repo_root, *args, "--no-web") if args[0] == "watch" else run(repo_root, *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_room_settings_come_from_the_config_file_then_the_profile(tmp_path):
    config = tmp_path / "room.json"
    config.write_text(json.dumps({"room": {"hub": "mqtt://broker.local:1883", "table": 7}}))
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"corners": [], "room": {"table": 9, "tournament": "open", "hub_token": "t"}}))
    args = namespace(room_config=str(config), calibration=str(profile))
    address = hub_options(args)
    assert (address.host, address.port) == ("broker.local", 1883)
    assert (args.table, args.tournament, args.hub_token) == (7, "open", "t")  # the file wins over the profile
    args = namespace(room_config=str(config), calibration=str(profile), table=12, tournament="final")
    hub_options(args)
    assert (args.table, args.tournament) == (12, "final")  # the command line wins over both
    assert merge_room_settings({"table": None}, {}, {"table": 3})["table"] == 3


@pytest.mark.parametrize("content, message", [
    ('{"room": {"table": "7"}}', "'table' must be a whole number"),
    ('{"room": {"brokr": "x"}}', "unknown room setting 'brokr'"),
    ('{"room": [1]}', '"room" must be an object'),
    ("not json", "is not JSON"),
])
def test_bad_room_settings_files_are_refused_with_a_sentence(tmp_path, content, message):
    path = tmp_path / "room.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        read_room_settings(path)
    with pytest.raises(UserError, match="room settings"):
        hub_options(namespace(room_config=str(path)))


def test_a_profile_that_cannot_be_read_is_left_to_the_board_reader(tmp_path):
    assert hub_options(namespace(calibration=str(tmp_path / "missing.json"))) is None
