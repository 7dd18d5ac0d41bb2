"""The demo recording's cache key (companion.demo.demo_folder)."""

from __future__ import annotations

import companion.demo as demo


def test_the_cache_key_follows_the_renderers(tmp_path, monkeypatch):
    # frames cached by another version of the renderers are not replayed: the folder name carries
    # a fingerprint of the renderers' source (rendering itself is replaced by a one-frame stand-in
    # here; the real one takes seconds and is exercised by the watch tests)
    fp = demo.renderer_fingerprint()
    assert len(fp) == 40 and fp == demo.renderer_fingerprint()
    renders = []

    def render(script, folder, *args, **kwargs):
        folder.mkdir(parents=True)
        (folder / "frame00000.jpg").write_bytes(b"x")
        renders.append(folder)
        return 1

    monkeypatch.setattr(demo, "render_script", render)
    monkeypatch.setattr(demo, "renderer_fingerprint", lambda: "a" * 40)
    first = demo.demo_folder(tmp_path)
    assert demo.demo_folder(tmp_path) == first and len(renders) == 1  # cached: reused
    monkeypatch.setattr(demo, "renderer_fingerprint", lambda: "b" * 40)
    second = demo.demo_folder(tmp_path)
    assert second != first and len(renders) == 2  # another renderer: rendered again
    assert (second / "DONE").exists() and (first / "DONE").exists()
