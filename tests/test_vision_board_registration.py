"""Registration: corners, orientation, ArUco, lens distortion, bad corners."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.registration import (
    FIELD_HEIGHT,
    FIELD_WIDTH,
    ORIENTATIONS,
    CameraModel,
    RegistrationError,
    detect_aruco_corners,
    field_from_corners,
    parse_corners,
    validate_corners,
    warp_field,
)

CORNERS = np.array([[211, 29], [890, 26], [870, 648], [237, 660]], dtype=float)


def test_parse_corners_accepts_negatives_and_fractions():
    c = parse_corners("-4,2,503.5,0,487,465,14,472")
    assert c.shape == (4, 2)
    assert c[0, 0] == -4 and c[1, 0] == 503.5


@pytest.mark.parametrize("text", ["1,2,3", "a,b,c,d,e,f,g,h", "1,2,3,4,5,6,7,8,9", "nan,1,2,3,4,5,6,7"])
def test_parse_corners_rejects_malformed(text):
    with pytest.raises(RegistrationError):
        parse_corners(text)


def test_corners_map_to_field_corners():
    field = field_from_corners(CORNERS, (1280, 720))
    out = field.to_field(CORNERS)
    expected = np.array([[0, 0], [FIELD_WIDTH, 0], [FIELD_WIDTH, FIELD_HEIGHT], [0, FIELD_HEIGHT]])
    assert np.allclose(out, expected, atol=1e-6)
    back = field.to_image(out)
    assert np.allclose(back, CORNERS, atol=1e-6)


@pytest.mark.parametrize("bad", [
    [[211, 29], [870, 648], [890, 26], [237, 660]],  # crossed (bow tie)
    [[237, 660], [870, 648], [890, 26], [211, 29]],  # anticlockwise
    [[0, 0], [5, 0], [5, 5], [0, 5]],  # tiny
    [[-5000, 0], [900, 0], [900, 700], [0, 700]],  # far outside
])
def test_bad_corners_raise(bad):
    with pytest.raises(RegistrationError):
        validate_corners(np.array(bad, dtype=float), (1280, 720))


def test_corner_outside_image_is_allowed_when_modest():
    validate_corners(np.array([[-4, 2], [503, 0], [487, 465], [14, 472]], dtype=float), (500, 470))


def test_point_geometry_follows_read_numbering():
    field = field_from_corners(CORNERS, (1280, 720))
    p1, p12, p13, p24 = field.point(1), field.point(12), field.point(13), field.point(24)
    assert p1.row == "bottom" and p1.half == "right" and p1.x1 == pytest.approx(FIELD_WIDTH)
    assert p12.row == "bottom" and p12.half == "left" and p12.x0 == 0
    assert p13.row == "top" and p13.x0 == 0 and p13.direction == 1
    assert p24.row == "top" and p24.x1 == pytest.approx(FIELD_WIDTH)
    assert field.point(7).x1 == pytest.approx(field.bar_x0)
    assert field.point(6).x0 == pytest.approx(field.bar_x1)
    assert field.point(18).x1 == pytest.approx(field.bar_x0)
    assert field.point(19).x0 == pytest.approx(field.bar_x1)
    with pytest.raises(ValueError):
        field.point(25)


@pytest.mark.parametrize("orientation", list(ORIENTATIONS))
def test_every_orientation_puts_the_home_board_in_its_quadrant(orientation):
    field = field_from_corners(CORNERS, (1280, 720), orientation=orientation)
    # The centre of point 1 (reference player's home board) in the image:
    g = field.point(1)
    x, y = field.to_image(np.array([[g.centre_x, FIELD_HEIGHT - 10]]))[0]
    vert, horiz = orientation.split("-")
    cx, cy = CORNERS[:, 0].mean(), CORNERS[:, 1].mean()
    assert (y > cy) == (vert == "bottom")
    assert (x > cx) == (horiz == "right")
    # Point 24 is always across from point 1 (same side of the bar, other row).
    g24 = field.point(24)
    x24, y24 = field.to_image(np.array([[g24.centre_x, 10]]))[0]
    assert (x24 > cx) == (x > cx) and (y24 > cy) != (y > cy)
    # Round trip through to_dict keeps image-order corners.
    assert np.allclose(np.array(field.to_dict()["corners"]), CORNERS, atol=0.01)


def test_warp_moves_a_marked_pixel_to_its_field_place():
    img = np.zeros((720, 1280, 3), np.uint8)
    field = field_from_corners(CORNERS, (1280, 720))
    x, y = field.to_image(np.array([[100.0, 200.0]]))[0]
    cv2.circle(img, (int(round(x)), int(round(y))), 6, (255, 255, 255), -1)
    warped = warp_field(img, field)
    assert warped.shape == (FIELD_HEIGHT, FIELD_WIDTH, 3)
    ys, xs = np.nonzero(warped[:, :, 0] > 128)
    assert abs(xs.mean() - 100) < 2 and abs(ys.mean() - 200) < 2
    with pytest.raises(RegistrationError):
        warp_field(np.zeros((100, 100, 3), np.uint8), field)


def test_aruco_markers_give_the_inner_corners():
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    img = np.full((600, 800, 3), 255, np.uint8)
    size = 60
    # Markers outside the field's corners, inner corner at the field corner.
    field_corners = [(150, 100), (650, 100), (650, 500), (150, 500)]
    offsets = [(-size, -size), (0, -size), (0, 0), (-size, 0)]
    for mid, (fc, off) in enumerate(zip(field_corners, offsets)):
        marker = cv2.aruco.generateImageMarker(dictionary, mid, size)
        x0, y0 = fc[0] + off[0], fc[1] + off[1]
        img[y0:y0 + size, x0:x0 + size] = marker[:, :, None]
    found = detect_aruco_corners(img)
    assert np.allclose(found, np.array(field_corners, dtype=float), atol=2.0)
    with pytest.raises(RegistrationError, match="not found"):
        detect_aruco_corners(np.full((600, 800, 3), 255, np.uint8))


def test_lens_distortion_round_trip():
    k = np.array([[800.0, 0, 640], [0, 800.0, 360], [0, 0, 1]])
    cam = CameraModel(k, np.array([-0.2, 0.05, 0.0, 0.0, 0.0]), (1280, 720))
    pts = np.array([[100.0, 80.0], [1200.0, 650.0], [640.0, 360.0]])
    assert np.allclose(cam.undistort_points(cam.distort_points(pts)), pts, atol=0.05)
    again = CameraModel.from_dict(json.loads(json.dumps(cam.to_dict())))
    assert np.allclose(again.camera_matrix, k)
    field = field_from_corners(CORNERS, (1280, 720), camera=cam)
    assert np.allclose(field.to_image(field.to_field(CORNERS)), CORNERS, atol=0.05)
    warped = warp_field(np.full((720, 1280, 3), 7, np.uint8), field)
    assert warped.shape == (FIELD_HEIGHT, FIELD_WIDTH, 3) and warped[300, 320, 0] == 7


def test_labelled_real_corners_register(shared_data):
    for path in sorted((shared_data / "boards" / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        c = label["corners"]
        corners = [c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]]
        field = field_from_corners(corners, tuple(label["size"]))
        bar = field.to_field(np.array([label["bar"]["top"], label["bar"]["bottom"]], dtype=float))
        # The labelled bar line lies in the canonical bar band (within a few pixels).
        assert np.all(np.abs(bar[:, 0] - FIELD_WIDTH / 2) < 20), path.name


def _chessboard_views(k, dist, n_views=6, pattern=(9, 6), square=30.0, size=(960, 720)):
    """Photos of a printed chessboard seen by a camera with lens distortion."""
    views = []
    for i in range(n_views):
        # A board of (pattern+1) squares, in its own plane (z = 0), posed in front of the camera.
        rvec = np.array([0.25 * np.sin(i), 0.3 * np.cos(1.3 * i), 0.1 * i], float)
        tvec = np.array([-150.0 + 10 * i, -100.0, 650.0 + 20 * i])
        img = np.full((size[1], size[0]), 255, np.uint8)
        for r in range(-1, pattern[1]):
            for c in range(-1, pattern[0]):
                if (r + c) % 2:
                    continue
                quad = np.array([[c, r, 0], [c + 1, r, 0], [c + 1, r + 1, 0], [c, r + 1, 0]], float) * square
                # Sample the square's edges densely so that distortion bends them.
                pts3 = np.concatenate([np.linspace(quad[j], quad[(j + 1) % 4], 12) for j in range(4)])
                pts2, _ = cv2.projectPoints(pts3, rvec, tvec, k, dist)
                cv2.fillPoly(img, [np.round(pts2.reshape(-1, 2) * 4).astype(np.int32)], 0, cv2.LINE_AA, shift=2)
        views.append(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
    return views


def test_chessboard_calibration_recovers_the_lens():
    from vision.registration import calibrate_chessboard

    k = np.array([[800.0, 0, 480], [0, 800.0, 360], [0, 0, 1]])
    dist = np.array([-0.25, 0.08, 0.0, 0.0, 0.0])
    cam = calibrate_chessboard(_chessboard_views(k, dist))
    assert cam.image_size == (960, 720)
    assert abs(cam.camera_matrix[0, 0] - 800) < 40 and abs(cam.camera_matrix[1, 1] - 800) < 40
    assert cam.dist_coeffs[0] < -0.1  # barrel distortion found
    with pytest.raises(RegistrationError):
        calibrate_chessboard([np.full((100, 100, 3), 255, np.uint8)] * 3)
