"Chapter 15's kept work buffers: bounded, and a CUDA graph's capture takes its warm-up's buffer instead of allocating."
import pytest
from cudamm import compat
from cudamm.kernels import shapes


@pytest.fixture
def kept(monkeypatch):
    fresh = shapes._Kept()
    monkeypatch.setattr(shapes, "_KEPT", fresh)
    return fresh


def test_a_capture_takes_the_warm_up_buffer_and_keeps_it(kept, monkeypatch):
    warm = shapes.workspace(4000, stream=7)                       # the warm-up, on a side stream
    assert shapes.workspace(3000, stream=7) is warm               # same stream, same size class: reused
    monkeypatch.setattr(compat, "stream_capturing", lambda s: s == 9)
    monkeypatch.setattr(shapes.cuda, "device_array", lambda *a, **k: pytest.fail("allocated during a capture"))
    taken = shapes.workspace(4000, stream=9)                      # the capture stream: nothing allocated
    assert taken is warm and len(kept.captured) == 1
    monkeypatch.undo()
    monkeypatch.setattr(shapes, "_KEPT", kept)
    monkeypatch.setattr(shapes, "KEEP_BUFFERS", 1)
    for s in range(3): shapes.workspace(4000, stream=20 + s)     # over the bound: others dropped, never the graph's
    assert any(b is warm for b in kept.buffers.values())


def test_a_capture_with_no_buffer_to_take_says_what_to_do(kept, monkeypatch):
    monkeypatch.setattr(compat, "stream_capturing", lambda s: True)
    with pytest.raises(RuntimeError, match="run the same step once before capturing"):
        shapes.workspace(4096, stream=9)


def test_the_default_stream_is_never_capturing():
    assert compat.stream_capturing(0) is False
