"""The Observation contract between vision and the referee."""

import pytest

from companion.observation import Counts, CubeReading, DieReading, Observation, PointReading


def test_observation_needs_24_points():
    with pytest.raises(ValueError):
        Observation(points=tuple(PointReading(i, 0, None) for i in range(1, 24)))


def test_to_dict_matches_the_read_json_layout():
    points = tuple(PointReading(i, 2 if i == 1 else 0, "dark" if i == 1 else None) for i in range(1, 25))
    obs = Observation(
        points=points,
        bar=Counts(light=1),
        dice=(DieReading(value=3, center=(10.0, 20.0)),),
        cube=CubeReading(value=64, place="centre"),
    )
    d = obs.to_dict()
    assert d["points"][0] == {"point": 1, "count": 2, "colour": "dark"}
    assert len(d["points"]) == 24
    assert d["bar"] == {"light": 1, "dark": 0}
    assert d["dice"][0]["value"] == 3 and d["dice"][0]["cocked"] is False
    assert d["cube"]["place"] == "centre"
