"""The dashboard's routes on the real referee session (``companion.session.Session``)
judging the demo game's readings: cube actions, accepting an illegal play, the score sheet."""

from __future__ import annotations

import pytest

from web import create_app
from web_demo_driver import DemoDriver

AUTH = {"Authorization": "Bearer real-token"}


@pytest.fixture()
def game():
    driver = DemoDriver(mode="teaching")
    app = create_app({"ACCESS_TOKEN": "real-token"}, session=driver.session)
    yield driver, app.test_client()
    app.extensions["companion"].shutdown()


def test_cube_actions_from_the_dashboard_reach_the_referee(game):
    driver, client = game
    driver.until_type("verdict", verdict="legal")
    state = client.get("/api/state").get_json()
    assert state["waiting_for"] == "roll"
    doubler = state["turn"]
    response = client.post("/api/cube", json={"action": "double", "player": doubler}, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert "double offered" in client.get("/fragment/live").get_json()["live"]
    # Only the opponent may answer: the referee's refusal comes back with its sentence.
    response = client.post("/api/cube", json={"action": "take", "player": doubler}, headers=AUTH)
    assert response.status_code == 409 and response.get_json()["error"]
    response = client.post("/api/cube", json={"action": "take", "player": 1 - doubler}, headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()["state"]["cube"]["value"] == 2
    assert response.get_json()["state"]["cube"]["owner"] == 1 - doubler
    live = client.get("/fragment/live").get_json()["live"]
    assert 'id="cube" data-value="2"' in live


def test_accepting_an_illegal_play_clears_the_alert(game):
    driver, client = game
    assert client.post("/api/override/accept", json={}, headers=AUTH).status_code == 409
    driver.until_type("verdict", verdict="illegal")
    assert "alert illegal" in client.get("/fragment/live").get_json()["live"]
    response = client.post("/api/override/accept", json={}, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["state"]["waiting_for"] == "roll"  # the turn passed
    live = client.get("/fragment/live").get_json()["live"]
    assert "alert illegal" not in live
    assert 'class="alert accepted"' in live and "Accepted as played" in live
    assert "accept by dashboard" in live  # the audit trail


def test_the_finished_game_is_on_the_score_sheet_and_in_the_record(game):
    driver, client = game
    end = driver.until_type("game_end")
    sheet = client.get("/fragment/live").get_json()["scoresheet"]
    assert f'data-winner="{end["winner"]}" data-points="{end["points"]}"' in sheet
    record = client.get("/match.mat")
    assert record.status_code == 200
    text = record.get_data(as_text=True)
    assert " 5 point match" in text and "Ann" in text and "Ben" in text
