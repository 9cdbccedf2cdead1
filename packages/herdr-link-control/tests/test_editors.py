"""The surgical editors, as properties: on any document of the shapes users write, adding a leaf of
ours and taking it out again gives back the same text, and every other value stays where it was."""

import json
import tomllib

import pytest
from hypothesis import assume, event, example, given, settings, strategies as st

from herdr_link_control.userfiles import MISSING, DocumentError, JsonDocument, TomlDocument, json_value, toml_key

KEYS = st.sampled_from(["model", "approval_policy", "a-b", "x_1", "with space", "é", "mcp_servers", "hooks"])
SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(st.characters(codec="utf-8"), max_size=8),  # no lone surrogates: UTF-8 cannot carry them
)


@st.composite
def toml_texts(draw: st.DrawFn) -> str:
    """A TOML text as people write it: top-level keys (some dotted), tables, comments, blank lines,
    CRLF or LF, with or without a final newline."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    scalar = SCALARS.map(lambda v: json.dumps(v, ensure_ascii=False))
    member = st.tuples(st.lists(KEYS, min_size=1, max_size=2), scalar).map(lambda kv: f"{toml_key(kv[0])} = {kv[1]}")
    spacing = st.sampled_from([("{", "}"), ("{ ", " }")])
    inline = st.tuples(spacing, st.lists(member, max_size=3)).map(lambda t: t[0][0] + ", ".join(t[1]) + t[0][1])
    values = st.one_of(scalar, scalar, inline)
    lines: list[str] = []
    used: set[tuple[str, ...]] = set()

    def key_line(prefix: tuple[str, ...]) -> None:
        path = tuple(draw(st.lists(KEYS, min_size=1, max_size=3)))
        if any(p[: len(path)] == path or path[: len(p)] == p for p in used if p[: len(prefix)] == prefix):
            return
        used.add((*prefix, *path))
        comment = draw(st.sampled_from(["", "  # mine", " #"]))
        lines.append(f"{toml_key(path)} = {draw(values)}{comment}")

    for _ in range(draw(st.integers(0, 4))):
        key_line(())
    for index in range(draw(st.integers(0, 3))):
        lines.extend([""] * draw(st.integers(0, 2)))
        table = ("table", str(index))
        lines.append(f"[{toml_key(table)}]")
        used.add(table)
        for _ in range(draw(st.integers(0, 3))):
            key_line(table)
    text = newline.join(lines)
    final_newline: bool = draw(st.booleans())
    return text + newline if lines and final_newline else text


def _parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(toml_texts(), st.booleans())
def test_a_table_added_and_taken_out_gives_back_the_toml_text(text: str, top_level: bool) -> None:
    assume(_parses(text))  # a drawn key repeated in a way TOML refuses: not a file a host reads
    document = TomlDocument(text)
    before = document.value
    path = ("mcp_servers", "herdr_link") if top_level else ("table", "0", "ours")
    try:
        document.set((*path, "command"), "herdr-link-mcp")
    except DocumentError:  # only where a value that is not a table stands on the path
        blocked = [document.get(path[:i]) for i in range(1, len(path) + 1)]
        assert any(value is not MISSING and not isinstance(value, dict) for value in blocked), text
        event("refused: a value that is not a table stands on the path")
        assert document.text == text
        return
    assert document.value["mcp_servers" if top_level else "table"] is not None
    document.remove(path if top_level else (*path, "command"))
    if not top_level and document.get(path) == {}:
        document.remove(path)
    assert document.value == before
    assert document.text == text


@settings(max_examples=200, deadline=None)
@given(toml_texts())
@example("a = 1\n\n[table.0]\nk = 2")  # the last line, without a final newline
@example("[table.0]\r\nk = 2 # mine\r\n[table.1]\r\n")
def test_a_key_line_moved_to_the_top_level_keeps_its_text_and_value(text: str) -> None:
    assume(_parses(text))
    document = TomlDocument(text)
    table = ("table", "0")
    keys = document.keys_under(table)
    top = {key[0] for key in document.keys_under(())}
    movable = [key for key in keys if key[0] not in top and key[0] != "table"]
    assume(movable)
    key = movable[0]
    value = document.get((*table, *key))
    document.move_line((*table, *key), ())
    assert document.get(key) == value and key not in document.keys_under(table)
    assert key in document.keys_under(())
    assert sorted(document.text.splitlines()) == sorted(text.splitlines())  # the same lines, one moved


OURS = {"command": "herdr-link-mcp", "args": [], "env": {"A": "1"}}


@settings(max_examples=200, deadline=None)
@given(toml_texts())
@example("a = 1\n\n[table.0]\nk = 2")  # the last line, without a final newline
@example("# theirs\r\n[table.0]\r\nk = 2 # mine\r\n\r\n[table.0.env]\r\nB = 1\r\n# after\r\n[table.1]\r\n")
def test_a_table_replaced_where_it_stands_and_put_back_gives_back_the_toml_text(text: str) -> None:
    assume(_parses(text))
    document = TomlDocument(text)
    path = ("table", "0")
    assume(isinstance(document.get(path), dict))
    spelled = document.source(path)
    assert spelled is not None and text.count(spelled) >= 1
    document.replace_table(path, OURS)
    assert document.get(path) == OURS and document.text.startswith(text[: text.index("[table.0]")])
    assert document.text.endswith(text[text.index(spelled) + len(spelled) :])  # what follows it stays after it
    document.set_source(path, spelled)
    assert document.text == text


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("a = 1\n[servers]\n# theirs\nours = { x = 1, y = [2] }  # kept\nz = 3\n", ("servers", "ours")),
        ("servers.ours = {x=1}\nz = 3\n[t]\n", ("servers", "ours")),
        ("servers = { ours = { x = 1 }, other = 2 }\n", ("servers", "ours")),
    ],
)
def test_an_inline_table_replaced_stays_inline_where_it_stands_and_is_put_back(
    text: str, path: tuple[str, ...]
) -> None:
    document = TomlDocument(text)
    spelled = document.source(path)
    assert spelled is not None and spelled.startswith("{")
    document.replace_table(path, OURS)
    before, after = text.split(spelled)
    assert document.get(path) == OURS and document.text.startswith(before) and document.text.endswith(after)
    with pytest.raises(DocumentError):  # an inline table does not go in as blocks
        document.set_source(path, "[servers.ours]\nx = 1\n")
    document.set_source(path, spelled)
    assert document.text == text


def test_a_table_not_written_in_one_place_is_replaced_at_the_end() -> None:
    text = "[s.ours]\nx = 1\n\n[other]\ny = 2\n\n[s.ours.env]\nB = 1\n"
    document = TomlDocument(text)
    assert document.source(("s", "ours")) is None
    document.replace_table(("s", "ours"), OURS)
    assert document.get(("s", "ours")) == OURS and document.text.index("[other]") < document.text.index("[s.ours]")


def test_a_key_line_that_cannot_move_is_refused_and_the_text_kept() -> None:
    text = 'model = "a"\n\n[t]\nmodel = "b"\n'
    document = TomlDocument(text)
    with pytest.raises(DocumentError):
        document.move_line(("t", "model"), ())  # the top level has its own model
    assert document.text == text
    with pytest.raises(DocumentError):
        document.move_line(("t", "missing"), ())


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """A JSON object as tools and people write it: any indentation, separators, key order, escapes."""
    value = draw(st.dictionaries(KEYS, st.one_of(SCALARS, st.dictionaries(KEYS, SCALARS, max_size=3)), max_size=5))
    indent = draw(st.sampled_from([None, 0, 2, 4, "\t"]))
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (",", ": ")]))
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=draw(st.booleans()))
    text = text.replace("\n", "\r\n") if draw(st.booleans()) else text
    return text + draw(st.sampled_from(["", "\n", "\r\n", "\n\n"]))


@settings(max_examples=300, deadline=None)
@given(json_texts(), st.booleans())
def test_a_member_added_and_taken_out_gives_back_the_json_text(text: str, nested: bool) -> None:
    document = JsonDocument(text)
    before = document.value
    parent = next((k for k, v in before.items() if isinstance(v, dict)), None) if nested else None
    path: tuple[str, ...] = (parent, "herdr_link") if parent else ("herdr_link",)
    inner = document.inner(path[:-1]) if not document.get(path[:-1]) else ""
    document.set(path, {"command": "herdr-link-mcp", "args": []})
    assert document.get((*path, "command")) == "herdr-link-mcp"
    document.remove(path, inner=inner)
    assert document.value == before
    assert document.text == text


@settings(max_examples=200, deadline=None)
@given(json_texts())
def test_a_value_replaced_and_put_back_as_spelled_gives_back_the_json_text(text: str) -> None:
    document = JsonDocument(text)
    key: str = next(iter(document.value), "")
    assume(key != "")
    spelled = document.source((key,))
    assert spelled is not None and json_value(spelled) == document.value[key]
    document.set((key,), {"command": "herdr-link-mcp", "args": []})
    document.set_source((key,), spelled)
    assert document.text == text
    with pytest.raises(DocumentError):
        document.set_source((key,), "[1,")  # not one value: refused, the text kept
    assert document.text == text


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers = { other = { command = "x" } }\nmodel = "o3"\n',
        "mcp_servers = {}\n",
        'hooks = { state = { "/a:session_start:0:0" = { trusted_hash = "sha256:u" } } }\n',
        'mcp_servers.other.command = "x"\nprojects."/w".trust_level = "untrusted"\nmodel = 1\n',
    ],
    ids=["inline", "empty-inline", "nested-inline", "dotted"],
)
def test_tables_written_inline_or_dotted_are_added_to_where_they_stand(text: str) -> None:
    document = TomlDocument(text)
    before = document.value
    document.add_table(("mcp_servers", "herdr_link"), {"command": "herdr-link-mcp", "args": []})
    document.set(("mcp_servers", "herdr_link", "env_vars"), ["HERDR_ENV"])
    document.set(("hooks", "state", "/k:session_start:1:0", "trusted_hash"), "sha256:ours")
    document.set(("projects", "/w", "trust_level"), "trusted")
    document.set(("projects", "/w", "since"), 1)  # a new leaf beside a dotted one
    assert document.get(("mcp_servers", "herdr_link", "env_vars")) == ["HERDR_ENV"]
    assert document.get(("projects", "/w")) == {"trust_level": "trusted", "since": 1}
    document.remove(("projects", "/w", "since"))
    if "untrusted" in text:
        document.set(("projects", "/w", "trust_level"), "untrusted")
    else:
        document.remove(("projects", "/w"))
    document.remove(("hooks", "state", "/k:session_start:1:0"))
    document.remove(("mcp_servers", "herdr_link"))
    assert document.value == before and document.text == text


@pytest.mark.parametrize(
    "text",
    [
        '{"projects": {"/p": {"hasTrustDialogAccepted": true}}, "n": [1, 2.5, null, "é"]}',
        '\ufeff{"a": {}}',
        "",
        "  \n",
    ],
)
def test_reading_a_json_file_gives_what_the_editor_reads(text):
    """``json_value`` (the fast read of a host's file) and ``JsonDocument.value`` agree."""
    assert json_value(text) == JsonDocument(text).value


def test_reading_jsonc_and_invalid_json():
    assert json_value('{"a": 1, // note\n "b": /* two */ [2]}', jsonc=True) == {"a": 1, "b": [2]}
    for bad in ("{not json", '{"a": 1,}'):
        with pytest.raises(ValueError):
            json_value(bad)
    # Gemini CLI strips comments, then JSON.parse: a trailing comma or a byte-order mark it cannot read
    for unreadable in ('{"a": 1, // note\n "b": [2,],}', '\ufeff{"a": 1}'):
        with pytest.raises(ValueError):
            json_value(unreadable, jsonc=True)


RULE = "MCPTool(herdr_link__*)"
ALLOW = ("permission", "allow")


def _keeps_every_byte(before: str, after: str) -> bool:
    """Whether ``after`` is ``before`` with text inserted only (every byte of it kept, in order)."""
    rest = iter(after)
    return all(char in rest for char in before)


@pytest.mark.parametrize(
    ("text", "added"),
    [
        ('[permission]\nallow = ["Bash(git *)"]\n', '[permission]\nallow = ["Bash(git *)", "RULE"]\n'),
        ('[permission]\nallow = ["a","b",]  # two\n', '[permission]\nallow = ["a","b", "RULE",]  # two\n'),
        ("[permission]\nallow = [ ]  # none yet\n", '[permission]\nallow = ["RULE" ]  # none yet\n'),
        (
            '[permission]\nallow = [\n  "Bash(git *)",  # git\n  "Read",\n]\ndeny = ["Bash(rm *)"]\n',
            '[permission]\nallow = [\n  "Bash(git *)",  # git\n  "Read",\n  "RULE",\n]\ndeny = ["Bash(rm *)"]\n',
        ),
        (  # no trailing comma, a comment on the last line: the comma goes before it, ours on a line of its own
            '[permission]\nallow = [\n  "Bash(git *)",\n  "Read" # reading\n]\n',
            '[permission]\nallow = [\n  "Bash(git *)",\n  "Read", # reading\n  "RULE"\n]\n',
        ),
        (
            '[permission]\r\nallow = [\r\n    # mine\r\n    "Read",\r\n\r\n    # later\r\n]\r\n',
            '[permission]\r\nallow = [\r\n    # mine\r\n    "Read",\r\n    "RULE",\r\n\r\n    # later\r\n]\r\n',
        ),
        ('[permission]\nallow = [\n  "a",\n  "b"]', '[permission]\nallow = [\n  "a",\n  "b",\n  "RULE"]'),
        ('permission.allow = [\n  "a", "b",\n]\n', 'permission.allow = [\n  "a", "b", "RULE",\n]\n'),
        (
            'permission = { allow = ["a"], deny = [] }  # inline\n',
            'permission = { allow = ["a", "RULE"], deny = [] }  # inline\n',
        ),
        ("[permission]\nallow = [\n]\n", '[permission]\nallow = ["RULE"\n]\n'),
    ],
    ids="one-line trailing-comma empty multi-line comment-last crlf-comments bracket-on-last dotted inline-table "
    "empty-multi-line".split(),
)
def test_a_rule_added_to_a_users_list_keeps_every_byte_and_is_taken_out_exactly(text: str, added: str) -> None:
    document = TomlDocument(text)
    before = document.get(ALLOW)
    document.append(ALLOW, RULE)
    assert document.text == added.replace("RULE", RULE)
    assert document.get(ALLOW) == [*before, RULE] and _keeps_every_byte(text, document.text)
    document.remove((*ALLOW, len(before)))
    assert document.text == text


def test_our_rule_is_taken_out_alone_after_the_user_added_more_around_it() -> None:
    document = TomlDocument('[permission]\nallow = [\n  "a",\n]\n')
    document.append(ALLOW, RULE)
    document.append(ALLOW, "Read")  # the user's, after ours
    document.remove((*ALLOW, 1))
    assert document.text == '[permission]\nallow = [\n  "a",\n  "Read",\n]\n'
    one_line = TomlDocument('allow = ["a", "MCPTool(herdr_link__*)", "b"]\n')
    one_line.remove(("allow", 1))
    assert one_line.text == 'allow = ["a", "b"]\n'


@pytest.mark.parametrize(
    "text",
    ["", "# mine\nmodel = 1", "[permission]\ndeny = []  # mine\n", "permission = {}\n", "permission.deny = []\n"],
    ids=["empty", "no-final-newline", "table", "inline-table", "dotted"],
)
def test_a_rule_list_we_create_is_taken_out_to_the_same_bytes(text: str) -> None:
    document = TomlDocument(text)
    created = ("permission",) if document.get(("permission",)) is MISSING else ALLOW
    document.set(ALLOW, [RULE])
    assert document.get(ALLOW) == [RULE] and _keeps_every_byte(text, document.text)
    document.remove(created)
    assert document.text == text


@pytest.mark.parametrize(
    "text", ['[permission]\nallow = "Bash(git *)"\n', "[permission.allow]\nx = 1\n", 'permission = "x"\n']
)
def test_a_rule_is_not_appended_to_what_is_not_a_list(text: str) -> None:
    document = TomlDocument(text)
    with pytest.raises(DocumentError, match="is not a list"):
        document.append(ALLOW, RULE)
    assert document.text == text


@st.composite
def toml_lists(draw: st.DrawFn) -> str:
    """``allow = [...]`` as people write it: on one line or one item a line, with comments, blank lines, a
    trailing comma or none, CRLF or LF, the closing bracket on its own line or after the last item."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    items = [json.dumps(s) for s in draw(st.lists(st.sampled_from(["Read", "Bash(git *)", "é"]), max_size=4))]
    comment = st.sampled_from(["", "  # mine", " #"])
    if draw(st.booleans()):  # one line
        body = draw(st.sampled_from([", ", ",", " , "])).join(items)
        comma = "," if draw(st.booleans()) and len(items) > 0 else ""
        pad = draw(st.sampled_from(["", " "]))
        array = f"[{pad}{body}{comma}{pad}]{draw(comment)}"
    else:
        indent = draw(st.sampled_from(["  ", "    ", "\t"]))
        lines = [f"[{draw(comment)}"]
        for index, item in enumerate(items):
            if draw(st.integers(0, 4)) == 0:
                lines.append(f"{indent}# about the next one" if draw(st.booleans()) else "")
            last = index == len(items) - 1
            comma = "," if not last or draw(st.booleans()) else ""
            lines.append(f"{indent}{item}{comma}{draw(comment)}")
        if draw(st.booleans()) and items and not lines[-1].rstrip().endswith(("#", "mine")):
            lines[-1] += "]"
        else:
            lines.append("]")
        array = nl.join(lines)
    head = draw(st.sampled_from(["[permission]" + nl + "allow = ", "permission.allow = ", "[permission]" + nl +
                                 "deny = []" + nl + "allow = "]))  # fmt: skip
    tail = draw(st.sampled_from(["", nl, nl + 'mode = "ask"' + nl, nl + nl + "[other]" + nl]))
    return head + array + tail


@settings(max_examples=400, deadline=None)
@given(toml_lists())
@example('[permission]\nallow = [\n  "Read" # mine\n]\n')
def test_any_layout_of_a_list_gets_our_rule_and_gives_the_same_bytes_back(text: str) -> None:
    assume(_parses(text))
    document = TomlDocument(text)
    before = document.get(ALLOW)
    document.append(ALLOW, RULE)
    assert document.get(ALLOW) == [*before, RULE] and _keeps_every_byte(text, document.text)
    document.remove((*ALLOW, len(before)))
    assert document.text == text


RULES = ("permission", "rules")
TABLE_RULE = {"decision": "allow", "pattern": "mcp__herdr_link__*"}
OURS_BLOCK = '[[permission.rules]]NLdecision = "allow"NLpattern = "mcp__herdr_link__*"NL'


@pytest.mark.parametrize(
    ("text", "added"),
    [
        ("", OURS_BLOCK),
        ('model = "k"', 'model = "k"\n\n' + OURS_BLOCK[:-2]),
        (  # the user's rules, a comment and a sub-table after them, another table after that
            '# mine\n[permission]\nguard = true\n\n[[permission.rules]]\ndecision = "deny"\npattern = "Bash(rm *)"\n'
            '# after\n\n[[permission.rules]]\ndecision = "ask"\npattern = "Write"\n[permission.rules.x]\na = 1\n\n'
            '[providers.k]\ntype = "kimi"\n',
            '# mine\n[permission]\nguard = true\n\n[[permission.rules]]\ndecision = "deny"\npattern = "Bash(rm *)"\n'
            '# after\n\n[[permission.rules]]\ndecision = "ask"\npattern = "Write"\n[permission.rules.x]\na = 1\n\n'
            + OURS_BLOCK
            + '\n[providers.k]\ntype = "kimi"\n',
        ),
        (
            '[permission]\r\n[[permission.rules]]\r\ndecision = "deny"\r\npattern = "Bash"\r\n',
            '[permission]\r\n[[permission.rules]]\r\ndecision = "deny"\r\npattern = "Bash"\r\n\r\n'
            + OURS_BLOCK.replace("NL", "\r\n"),
        ),
        ("permission.guard = true\nmodel = 'x'\n", "permission.guard = true\nmodel = 'x'\n\n" + OURS_BLOCK),
        (
            '[permission]\nrules = [{ decision = "deny", pattern = "Bash" }]\n',
            '[permission]\nrules = [{ decision = "deny", pattern = "Bash" }, '
            '{ decision = "allow", pattern = "mcp__herdr_link__*" }]\n',
        ),
    ],
    ids="empty no-final-newline users-rules crlf dotted inline-array".split(),
)
def test_a_table_appended_to_an_array_of_tables_keeps_every_byte_and_is_taken_out_exactly(
    text: str, added: str
) -> None:
    document = TomlDocument(text)
    before = document.get(RULES)
    before = [] if before is MISSING else before
    document.append(RULES, TABLE_RULE)
    assert document.text == added.replace("NL", "\n")
    assert document.get(RULES) == [*before, TABLE_RULE] and _keeps_every_byte(text, document.text)
    document.remove((*RULES, len(before)))
    assert document.text == text


def test_our_table_is_taken_out_alone_after_the_user_added_rules_around_it() -> None:
    document = TomlDocument('[[permission.rules]]\ndecision = "deny"\npattern = "Bash"\n')
    document.append(RULES, TABLE_RULE)
    document.append(RULES, {"decision": "ask", "pattern": "Write"})  # the user's, after ours
    document.remove((*RULES, 1))
    assert document.text == (
        '[[permission.rules]]\ndecision = "deny"\npattern = "Bash"\n\n'
        '[[permission.rules]]\ndecision = "ask"\npattern = "Write"\n'
    )


@pytest.mark.parametrize(
    "text", ['[permission]\nrules = "x"\n', '[permission.rules]\ndecision = "allow"\n', "[permission]\nrules = 1\n"]
)
def test_a_table_is_not_appended_to_what_is_not_an_array_of_tables(text: str) -> None:
    document = TomlDocument(text)
    with pytest.raises(DocumentError, match=r"permission\.rules is not an array of tables"):
        document.append(RULES, TABLE_RULE)
    assert document.text == text
