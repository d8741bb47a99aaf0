"""engine.safe_io: regular files only, size caps, the JSON budget, URL masking."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading

import pytest

from engine.safe_io import (
    JSON_MAX_DEPTH,
    BoundedInputError,
    load_json,
    mask_url,
    read_json_file,
    read_regular_file,
)

# ----------------------------------------------------------------------------------------
# Regular files only
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full"])
def test_devices_are_refused(device) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    with pytest.raises(BoundedInputError) as info:
        read_regular_file(device, max_bytes=10)
    assert str(info.value) == f"{device}: is a device, not a regular file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path) -> None:
    fifo = tmp_path / "comments.json"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def read() -> None:
        try:
            read_json_file(fifo)
        except BaseException as exc:
            done.append(exc)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert isinstance(done[0], BoundedInputError)
    assert str(done[0]) == f"{fifo}: is a pipe (FIFO), not a regular file"


def test_a_folder_is_refused(tmp_path) -> None:
    with pytest.raises(BoundedInputError, match=r"is a folder, not a file$"):
        read_regular_file(tmp_path, max_bytes=10)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a Unix socket")
def test_a_socket_is_refused(tmp_path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(BoundedInputError, match=r"is a socket, not a regular file$|unreadable"):
            read_regular_file(path, max_bytes=10)


def test_a_symlink_to_a_device_is_refused(tmp_path) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    link = tmp_path / "claims.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(BoundedInputError, match="is a device"):
        read_json_file(link)


def test_missing_and_bad_paths(tmp_path) -> None:
    with pytest.raises(BoundedInputError, match=r"nope\.json: file not found$"):
        read_regular_file(tmp_path / "nope.json", max_bytes=10)
    (tmp_path / "f").write_text("x")
    with pytest.raises(BoundedInputError, match="file not found"):
        read_regular_file(tmp_path / "f" / "below", max_bytes=10)


def test_size_cap_before_reading(tmp_path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"1," * 1000 + b"1]")
    with pytest.raises(BoundedInputError) as info:
        read_regular_file(path, max_bytes=100)
    assert str(info.value) == f"{path}: too large (2,003 bytes; the limit is 100 bytes)"
    assert read_regular_file(path, max_bytes=2003) == path.read_bytes()


# ----------------------------------------------------------------------------------------
# The JSON budget
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("digits", [31, 4301, 5000, 100_000])
def test_huge_integers_are_a_clean_error(digits) -> None:
    for text in (f'{{"start_offset": {"9" * digits}}}', f"[-{'1' * digits}]"):
        with pytest.raises(BoundedInputError) as info:
            load_json(text, "c.json")
        assert str(info.value).startswith("c.json: not usable JSON: an integer of ")
        assert "digits (at most 30 are accepted)" in str(info.value)


def test_integers_up_to_the_limit_load() -> None:
    assert load_json("[" + "9" * 30 + ", -" + "9" * 30 + "]") == [int("9" * 30), -int("9" * 30)]


@pytest.mark.parametrize("text", ["[NaN]", "[Infinity]", "[-Infinity]", "[1e400]", "[-1e999]"])
def test_non_finite_numbers_are_refused(text) -> None:
    with pytest.raises(BoundedInputError, match="not usable JSON"):
        load_json(text, "c.json")


@pytest.mark.parametrize("depth", [JSON_MAX_DEPTH + 1, 500, 5000, 200_000])
def test_deep_nesting_is_refused(depth) -> None:
    for open_, close in (("[", "]"), ('{"a":', "}")):
        with pytest.raises(BoundedInputError, match="nested too deeply"):
            load_json(open_ * depth + "1" + close * depth, "c.json")


def test_nesting_at_the_limit_loads() -> None:
    depth = JSON_MAX_DEPTH
    assert load_json("[" * depth + "]" * depth) is not None


@pytest.mark.parametrize(
    "data,problem",
    [
        (b"", "empty file"),
        (b"  \n ", "empty file"),
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        (b"{", "not a JSON file this program can read: at line 1, column 2, a name in double"),
        (b"[1,]", "not a JSON file"),
        (b'{"a": 1} x', "not a JSON file"),
    ],
)
def test_not_json(data, problem) -> None:
    with pytest.raises(BoundedInputError) as info:
        load_json(data, "c.json")
    assert str(info.value).startswith(f"c.json: {problem}")
    assert "\n" not in str(info.value)


def test_bom_and_size_cap() -> None:
    assert load_json(b"\xef\xbb\xbf[1]") == [1]
    assert load_json("\ufeff[1]") == [1]
    with pytest.raises(BoundedInputError, match=r"too large \(12 bytes; the limit is 5 bytes\)"):
        load_json(b"[1,2,3,4,5]\n", "c.json", max_bytes=5)


def test_read_json_file_round_trip(tmp_path) -> None:
    path = tmp_path / "c.json"
    obj = {"comments": [{"id": "c1", "anchor": {"quote": "é 🤔", "start_offset": 3}}]}
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert read_json_file(path) == obj


# ----------------------------------------------------------------------------------------
# mask_url
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url,masked",
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("https://user:pw@host/v1", "https://***@host/v1"),
        ("http://sk-secret@127.0.0.1:8089/v1", "http://***@127.0.0.1:8089/v1"),
        ("https://h/v1?api_key=sk-1&x=2", "https://h/v1?api_key=***&x=2"),
        ("https://h/v1?x=2&access_token=abc#frag", "https://h/v1?x=2&access_token=***#frag"),
        (
            "https://h/p?X-Amz-Signature=f00&X-Amz-Credential=k",
            "https://h/p?X-Amz-Signature=***&X-Amz-Credential=***",
        ),
        ("https://h/p?key=a;sig=b&page=3", "https://h/p?key=***;sig=***&page=3"),
        ("http://u:p@[::1", "http://***@[::1"),  # malformed: masked all the same
        ("http://[::1]:8080/v1?token=", "http://[::1]:8080/v1?token=***"),
        ("not a url at all", "not a url at all"),
        ("", ""),
    ],
)
def test_mask_url(url, masked) -> None:
    assert mask_url(url) == masked


def test_mask_url_never_raises_and_hides_the_secret() -> None:
    for url in ["http://a:b@", "//x@y", "?key=", "http://h?=", "@@@", "http://[", "://@"]:
        assert isinstance(mask_url(url), str)
    # user info runs to the last "@" of the authority, as URL parsers read it
    assert mask_url("http://x@y@z/?password=p@ss") == "http://***@z/?password=***"
    assert mask_url(None) == "None"  # type: ignore[arg-type]
