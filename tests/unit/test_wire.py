"""The wire format between the grader and a sandboxed submission (`autograder.sandbox.wire`): values and
frames round trip, and whatever the other side sends ends as plain data or a `WireError` (no sandbox)."""

import socket

import numpy as np
import pytest

from autograder.grader_support.activations import ACTIVATIONS
from autograder.sandbox import wire


def roundtrip(value):
    tree, buffers = wire.encode(value)
    frame = wire.pack({"v": tree}, buffers)
    a, b = socket.socketpair()
    with a, b:
        a.sendall(frame)
        header, received = wire.Reader(b).recv()
    return wire.decode(header["v"], received)


def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def test_wire_roundtrip_plain_data():
    value = (np.arange(6.0).reshape(2, 3), [np.int64(3), 2.5, float("nan"), None, True, "s"],
             {"W": np.ones((2, 1), dtype=np.float32)}, np.array([[1, 2]], dtype=np.int8))
    back = roundtrip(value)
    assert isinstance(back, tuple) and back[0].shape == (2, 3) and np.array_equal(back[0], value[0])
    assert back[1][0] == 3 and isinstance(back[1][0], np.int64) and np.isnan(back[1][2])
    assert back[2]["W"].dtype == np.float32 and back[3].dtype == np.int8
    assert back[0].flags.writeable


def test_infinities_a_negative_zero_and_non_contiguous_arrays_cross_unchanged():
    strided = np.arange(12.0).reshape(3, 4).T  # Fortran order: crosses in C order, same values
    back = roundtrip([float("inf"), float("-inf"), -0.0, strided, np.zeros((0, 3))])
    assert back[:2] == [float("inf"), float("-inf")] and str(back[2]) == "-0.0"
    assert np.array_equal(back[3], strided) and back[4].shape == (0, 3)


def test_wire_sends_subclasses_and_objects_as_plain_data_only():
    class Liar(np.ndarray):
        def __eq__(self, other):
            return True

    back = roundtrip([np.zeros((2, 2)).view(Liar), object(), np.array([object()], dtype=object)])
    assert type(back[0]) is np.ndarray
    assert isinstance(back[1], wire.Opaque) and isinstance(back[2], wire.Opaque)


def test_strict_mode_refuses_what_is_not_plain_data_instead_of_describing_it():
    for value in (object(), {1: "a key that is not a string"}, np.array([object()], dtype=object)):
        assert isinstance(wire.decode(*wire.encode(value)), wire.Opaque)
        with pytest.raises(wire.WireError, match="not plain data"):
            wire.encode(value, strict=True)
    assert wire.decode(*wire.encode([1, (2.0, "x")], strict=True)) == [1, (2.0, "x")]


def test_functions_cross_by_name_towards_the_sandbox_only():
    functions = {id(f): name for name, f in ACTIVATIONS.items()}
    tree, buffers = wire.encode({"g": ACTIVATIONS["tanh"]}, functions, strict=True)
    assert tree == {"__dict__": [["g", {"__fn__": "tanh"}]]}
    assert wire.decode(tree, buffers, ACTIVATIONS.__getitem__) == {"g": ACTIVATIONS["tanh"]}
    with pytest.raises(wire.WireError, match="not plain data"):  # a function not named does not cross
        wire.encode(len, functions, strict=True)


def test_more_than_max_items_values_are_refused_even_when_not_strict():
    assert len(wire.encode([0] * (wire.MAX_ITEMS - 1))[0]) == wire.MAX_ITEMS - 1
    with pytest.raises(wire.WireError, match="more than"):
        wire.encode([0] * wire.MAX_ITEMS)
    row = [0] * 1000
    with pytest.raises(wire.WireError, match="more than"):  # a list repeated is cheap to make, long to walk
        wire.encode([row] * 1000)


def test_nesting_is_bounded_both_ways():
    tree, _ = wire.encode(nested(wire.MAX_DEPTH + 5))
    for _ in range(wire.MAX_DEPTH + 1):
        tree = tree[0]
    assert tree == {"__opaque__": "nesting", "text": "nested too deeply"}  # cut where it gets too deep
    with pytest.raises(wire.WireError, match="not plain data"):
        wire.encode(nested(wire.MAX_DEPTH + 5), strict=True)
    assert wire.decode(*wire.encode(nested(wire.MAX_DEPTH))) == nested(wire.MAX_DEPTH)
    with pytest.raises(wire.WireError, match="nested too deeply"):
        wire.decode(nested(wire.MAX_DEPTH + 1), [])


@pytest.mark.parametrize("tree, buffers", [
    ({"__nd__": 0, "dtype": "|O", "shape": [1]}, [b"12345678"]),  # object arrays would unpickle
    ({"__nd__": 0, "dtype": "<f8", "shape": [10**9]}, [b"12345678"]),  # size does not match the bytes
    ({"__nd__": 0, "dtype": "<f8", "shape": [True]}, [b"12345678"]),  # a bool is not a size
    ({"__nd__": 0, "dtype": "<f8", "shape": [-1]}, [b"12345678"]),
    ({"__nd__": 3, "dtype": "<f8", "shape": [1]}, [b"12345678"]),  # no such buffer
    ({"__nd__": 0, "dtype": "V8", "shape": [1]}, [b"12345678"]),  # raw bytes: not on the allow-list
    ({"__float__": "1e999"}, []),  # only the three non-finite floats are tagged
    ({"__dict__": [["k"]]}, []),
    ({"__tuple__": "abc"}, []),
    ({}, []),
    ({"__pickle__": "gASV"}, []),
    ({"__fn__": "os.system"}, []),  # functions never cross towards the trusted side
])
def test_wire_rejects_anything_unexpected(tree, buffers):
    with pytest.raises(wire.WireError):
        wire.decode(tree, buffers)


def test_frames_unpack_to_what_was_packed_and_refuse_what_does_not_add_up():
    frame = wire.pack({"op": "call", "name": "f"}, [b"abc", b""])
    assert wire.unpack(frame) == ({"op": "call", "name": "f", "buffers": [3, 0]}, [b"abc", b""])
    for broken in (frame[:5], frame[:-1], frame + b"x"):
        with pytest.raises(wire.WireError):
            wire.unpack(broken)
    lying = frame.replace(b'"buffers":[3,0]', b'"buffers":[2,1]')  # same length, other sizes: still adds up
    assert wire.unpack(lying)[1] == [b"ab", b"c"]
    with pytest.raises(wire.WireError, match="do not add up"):
        wire.unpack(frame.replace(b'"buffers":[3,0]', b'"buffers":[3,1]'))


def test_several_frames_sent_at_once_are_read_one_after_another():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(wire.pack({"n": 1}) + wire.pack({"n": 2}, [b"xy"]))
        reader = wire.Reader(b)
        assert reader.recv() == ({"n": 1, "buffers": []}, [])
        assert reader.recv() == ({"n": 2, "buffers": [2]}, [b"xy"])
        a.close()
        with pytest.raises(EOFError):
            reader.recv()


def test_wire_rejects_oversized_frames():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(wire.pack({"x": 1}, [b"0" * 5000]))
        with pytest.raises(wire.TooBig):
            wire.Reader(b, max_frame=1000).recv()


def test_a_reader_refuses_more_bytes_in_all_than_its_limit():
    a, b = socket.socketpair()
    with a, b:
        reader = wire.Reader(b, max_total=3000)
        a.sendall(wire.pack({}, [b"0" * 1000]))
        reader.recv()  # within the limit, frame by frame...
        a.sendall(wire.pack({}, [b"0" * 1000]) + wire.pack({}, [b"0" * 1000]))
        with pytest.raises(wire.TooBig, match="in all"):  # ...until all of them together are past it
            reader.recv()
            reader.recv()


def test_a_header_that_is_not_json_or_not_a_frame_header_is_an_error():
    for head in (b"\xff\xfe", b"[1, 2]", b'{"buffers": [-1]}', b"[" * 100_000):
        frame = wire._PREFIX.pack(4 + len(head), len(head)) + head
        with pytest.raises(wire.WireError):
            wire.unpack(frame)
