"""The one JSON-lines reader: splitting, parsing once, depth and size bounds, never raising."""

import json

from hypothesis import given, settings, strategies as st

from herdr_link_protocol import MAX_JSON_DEPTH, JsonLine, JsonLineReader, LineFault
from herdr_link_protocol._jsonline import TOO_DEEP


def read(data: bytes, max_line_bytes: int | None = None) -> list[JsonLine]:
    reader = JsonLineReader() if max_line_bytes is None else JsonLineReader(max_line_bytes)
    return [*reader.feed(data), *reader.end()]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_raw_cr_is_whitespace_and_a_crlf_ending_is_an_lf_ending():
    lines = read(b'{"jsonrpc":"2.0",\r"id":5,\r\t"method":"ping"}\r\n{"id":6}\n')
    assert [line.message for line in lines] == [{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"id": 6}]
    assert [line.request_id for line in lines] == [5, 6]


def test_the_id_is_read_from_the_parsed_object_never_from_the_text():
    assert read(b'{"\\u0069d":7,"method":"ping"}\n')[0].request_id == 7
    assert read(b'{"method":"ping","params":{"note":"\\"id\\": 3"}}\n')[0].message == {
        "method": "ping",
        "params": {"note": '"id": 3'},
    }
    assert read(b'{"method":"ping","params":{"note":"\\"id\\": 3"}}\n')[0].request_id is None


def test_duplicate_keys_the_last_one_wins():
    assert read(b'{"id":"decoy","method":"ping","id":"real"}\n')[0].request_id == "real"


def test_ids_come_back_exactly_including_lone_surrogates_and_large_integers():
    assert read(b'{"id":"x\\ud800y"}\n')[0].request_id == "x\ud800y"
    assert read(b'{"id":123456789012345678901234567890}\n')[0].request_id == 123456789012345678901234567890
    for unusable in (b"true", b"1.5", b"null", b"[]", b"{}"):
        assert read(b'{"id":' + unusable + b"}\n")[0].request_id is None


def test_a_bom_invalid_utf8_and_blank_lines():
    assert read(b'\xef\xbb\xbf{"id":1}\n')[0].message == {"id": 1}
    assert read(b'{"id":1,"x":"\xff"}\n')[0].message == {"id": 1, "x": "\ufffd"}
    assert read(b"\n  \r\n\t\n") == []
    assert read(b'{"id":1,"x":"a\x00b"}\n')[0].fault is LineFault.NOT_JSON  # a raw control inside a string
    assert read(b'{"id":1,"x":NaN}\n')[0].fault is LineFault.NOT_JSON  # not JSON, as JSON.parse says


def test_nesting_never_raises_and_a_readable_top_level_keeps_its_id():
    deep = nested(5000)
    line = read(f'{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"arguments":{{"a":{deep}}}}}}}\n'.encode())
    assert line[0].message == {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": TOO_DEEP}
    assert line[0].request_id == 3 and line[0].too_deep == ("params",)
    assert read(("[" * 5000 + "\n").encode())[0].fault is LineFault.NOT_JSON
    assert read(f"{deep}\n".encode())[0].fault is LineFault.NOT_OBJECT
    assert read(f'{{"id":{deep}}}\n'.encode())[0].request_id is None
    assert read(f'{{"id":4,"p":{deep},"broken":}}\n'.encode())[0].fault is LineFault.NOT_JSON


def test_the_depth_bound_counts_the_message_as_level_one():
    within = nested(MAX_JSON_DEPTH - 1)
    beyond = nested(MAX_JSON_DEPTH)
    assert read(f'{{"id":1,"p":{within}}}\n'.encode())[0].too_deep == ()
    assert read(f'{{"id":1,"p":{beyond}}}\n'.encode())[0].too_deep == ("p",)
    assert read(f'{{"id":1,"p":"{beyond}"}}\n'.encode())[0].too_deep == ()  # brackets inside a string


def test_a_line_over_the_limit_is_cut_keeps_its_early_members_and_the_next_line_is_whole():
    long = b'{"id":9,"method":"tools/call","params":{"x":"' + b"y" * 500 + b'"}}'
    lines = read(long + b"\n" + b'{"id":10}\n', max_line_bytes=100)
    assert lines[0].fault is LineFault.TOO_LONG and lines[0].request_id == 9 and lines[0].size == len(long)
    assert lines[1] == JsonLine({"id": 10})
    # exactly at the limit is whole, one byte more is cut; a CR beyond the limit is the CRLF's own
    at_limit = b'{"id":1,"p":"' + b"z" * (100 - 15) + b'"}'
    assert len(at_limit) == 100
    assert read(at_limit + b"\r\n", max_line_bytes=100)[0].fault is None
    assert read(at_limit[:-2] + b'z"}\n', max_line_bytes=100)[0].fault is LineFault.TOO_LONG
    # an id that the cut splits is not guessed
    assert read(b'{"id":12345' + b" " * 200 + b"}\n", max_line_bytes=8)[0].request_id is None


@given(st.binary(max_size=300))
def test_any_bytes_are_read_without_raising(data):
    for line in read(data):
        assert line.message is not None or line.fault is not None


@given(st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), max_size=8), st.data())
def test_the_lines_do_not_depend_on_how_the_bytes_arrive(lines, data):
    stream = b"\n".join(lines) + b"\n"
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    reader = JsonLineReader(max_line_bytes=20)
    got: list[JsonLine] = []
    for start, stop in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        got.extend(reader.feed(stream[start:stop]))
    got.extend(reader.end())
    assert got == read(stream, max_line_bytes=20)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=20,
)


@settings(max_examples=200)
@given(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=5), st.sampled_from([" ", "\t", "\r", "\r \t"]))
def test_an_object_reads_as_json_loads_reads_it_whatever_its_whitespace(value, space):
    text = json.dumps(value, separators=("," + space, ":" + space))
    assert read(text.encode("utf-8", "surrogatepass") + b"\r\n") == [JsonLine(json.loads(text))]
