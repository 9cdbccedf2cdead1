"""The surgical YAML editor (Hermes Agent's ``config.yaml``): our server entry added to the layouts users
write keeps every byte of theirs and comes out again to the same text; what it cannot edit safely is
refused with the text unchanged; and, as a property, adding and taking out gives back any text."""

import json

import pytest
from hypothesis import assume, example, given, settings, strategies as st

from herdr_link_control.userfiles import MISSING, DocumentError, YamlDocument, yaml_value

PATH = ("mcp_servers", "herdr_link")
ENTRY: dict[str, object] = {
    "command": "/opt/herdr link/bin/herdr-link-mcp",
    "args": [],
    "env": {"HERDR_ENV": "${HERDR_ENV}", "HERDR_PANE_ID": "${HERDR_PANE_ID}"},
}
OURS_2 = (
    "  herdr_link:\n"
    '    command: "/opt/herdr link/bin/herdr-link-mcp"\n'
    "    args: []\n"
    "    env:\n"
    '      HERDR_ENV: "${HERDR_ENV}"\n'
    '      HERDR_PANE_ID: "${HERDR_PANE_ID}"\n'
)
FLOW = (
    'herdr_link: {command: "/opt/herdr link/bin/herdr-link-mcp", args: [], env: {HERDR_ENV: "${HERDR_ENV}", '
    'HERDR_PANE_ID: "${HERDR_PANE_ID}"}}'
)

HERMES = """\
# Hermes Agent configuration
model:
  default: "anthropic/claude-sonnet-4"   # my model
  provider: 'openrouter'

mcp_servers:
  # the filesystem server
  filesystem:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", /tmp]
    env: {}
  github:
    command: "npx"
    args:
      - -y
      - "@modelcontextprotocol/server-github"
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"

  # remote one, off for now
  # remote_api:
  #   url: "https://example.com/mcp"

toolsets: [hermes-cli]
"""

TOKEN = '      GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"\n'
LAYOUTS = {
    "comments and other servers": (
        HERMES,
        HERMES.replace(TOKEN, TOKEN + OURS_2),
    ),
    "four spaces, CRLF": (
        "mcp_servers:\r\n    fs:\r\n        command: 'npx'   # mine\r\nagent:\r\n    max_turns: 60\r\n",
        "mcp_servers:\r\n    fs:\r\n        command: 'npx'   # mine\r\n"
        "    herdr_link:\r\n"
        '        command: "/opt/herdr link/bin/herdr-link-mcp"\r\n'
        "        args: []\r\n"
        "        env:\r\n"
        '            HERDR_ENV: "${HERDR_ENV}"\r\n'
        '            HERDR_PANE_ID: "${HERDR_PANE_ID}"\r\n'
        "agent:\r\n    max_turns: 60\r\n",
    ),
    "empty file": ("", "mcp_servers:\n" + OURS_2),
    "only comments, no final newline": (
        "# nothing yet\n# really",
        "# nothing yet\n# really\nmcp_servers:\n" + OURS_2[:-1],
    ),
    "no mcp_servers yet": ("model: x\n", "model: x\nmcp_servers:\n" + OURS_2),
    "flow mapping parent, empty": ("mcp_servers: {}   # none yet\n", "mcp_servers: {" + FLOW + "}   # none yet\n"),
    "flow mapping parent, a server": (
        "mcp_servers: {fs: {command: npx}}\nmodel: x\n",
        "mcp_servers: {fs: {command: npx}, " + FLOW + "}\nmodel: x\n",
    ),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_our_entry_goes_in_as_the_file_is_written_and_comes_out_to_the_same_bytes(name: str) -> None:
    before, installed = LAYOUTS[name]
    document = YamlDocument(before)
    document.set(PATH, ENTRY)
    assert document.text == installed
    assert document.get(PATH) == ENTRY
    assert {k: v for k, v in document.value.items() if k != "mcp_servers"} == {
        k: v for k, v in yaml_value(before).items() if k != "mcp_servers"
    }
    again = YamlDocument(document.text)
    again.remove(PATH)
    assert again.text == before


def test_a_leaf_of_our_entry_is_set_and_added_where_it_stands() -> None:
    document = YamlDocument(HERMES)
    document.set(PATH, ENTRY)
    document.set((*PATH, "command"), "herdr-link-mcp")
    document.set((*PATH, "env", "HERDR_SOCKET_PATH"), "${HERDR_SOCKET_PATH}")
    assert document.get(PATH) == ENTRY | {
        "command": "herdr-link-mcp",
        "env": {**ENTRY["env"], "HERDR_SOCKET_PATH": "${HERDR_SOCKET_PATH}"},  # type: ignore[dict-item]
    }
    assert '      HERDR_SOCKET_PATH: "${HERDR_SOCKET_PATH}"\n' in document.text
    document.remove((*PATH, "env", "HERDR_SOCKET_PATH"))
    document.set((*PATH, "command"), ENTRY["command"])
    document.remove(PATH)
    assert document.text == HERMES


def test_an_entry_of_another_program_replaced_is_put_back_as_it_was_spelled() -> None:
    theirs = "mcp_servers:\n  herdr_link:   # the old one\n    command: node\n    args: [old.js]\nmodel: x\n"
    document = YamlDocument(theirs)
    spelled = document.source(PATH)
    assert spelled == "  herdr_link:   # the old one\n    command: node\n    args: [old.js]\n"
    document.set(PATH, ENTRY)
    assert document.get(PATH) == ENTRY
    assert document.text.endswith("model: x\n")
    document.set_source(PATH, spelled)
    assert document.text == theirs


REFUSED = {
    "mcp_servers is a list": "mcp_servers:\n  - fs\n",
    "mcp_servers is empty (null)": "mcp_servers:\nmodel: x\n",
    "mcp_servers is a string": "mcp_servers: none\n",
    "an anchor on mcp_servers": "mcp_servers: &servers\n  fs: {command: npx}\nother: *servers\n",
    "an alias as mcp_servers": "base: &servers\n  fs: {command: npx}\nmcp_servers: *servers\n",
    "a merge key in mcp_servers": "base: &b\n  fs: {command: npx}\nmcp_servers:\n  <<: *b\n  gh: {command: x}\n",
    # the blank line after it is the scalar's own: any text put after its last line would change it
    "a block scalar keeping its blank lines, last": "mcp_servers:\n  fs:\n    note: |+\n      kept\n\nmodel: x\n",
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_cannot_be_edited_safely_is_refused_with_the_text_unchanged(name: str) -> None:
    text = REFUSED[name]
    document = YamlDocument(text)
    with pytest.raises(DocumentError):
        document.set(PATH, ENTRY)
    assert document.text == text


@pytest.mark.parametrize(
    "text",
    ["mcp_servers: [\n", "- a\n- b\n", "a: 1\n---\nb: 2\n", "a: 1\na: 2\n", "a:\tb: c\n"],
    ids=["invalid", "a list", "two documents", "a repeated key", "a tab"],
)
def test_a_file_that_is_not_one_yaml_mapping_is_refused(text: str) -> None:
    with pytest.raises(DocumentError):
        YamlDocument(text)


def test_values_are_read_as_hermes_reads_them_yaml_1_1() -> None:
    document = YamlDocument("a: yes\nb: 010\nc: '1'\n")
    assert document.value == {"a": True, "b": 8, "c": "1"}
    assert document.get(("z",)) is MISSING


# The property: any text of the shapes people write.

KEYS = st.sampled_from(["model", "fs", "a-b", "x_1", "'quoted key'", '"é"', "mcp_servers", "env"])
SCALARS = st.one_of(
    st.sampled_from(["npx", "true", "~", "'single'", "1.5", "[]", "{}", '"a # b"', "|\n  block\n  text"]),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8).map(json.dumps),
)


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    """A YAML mapping as people write it: nested block mappings in a 2- or 4-space step, flow values,
    comments, blank lines, CRLF or LF, with or without a final newline."""
    step = draw(st.sampled_from([2, 4]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))

    def block(depth: int) -> list[str]:
        lines: list[str] = []
        keys = draw(st.lists(KEYS, min_size=1, max_size=4, unique=True))
        for key in keys:
            pad = " " * (step * depth)
            lines += [pad + "# " + draw(st.sampled_from(["note", "x: y", ""]))] * draw(st.integers(0, 1))
            lines += [""] * draw(st.integers(0, 1))
            comment = draw(st.sampled_from(["", "  # mine"]))
            if depth < 2 and draw(st.booleans()):
                lines.append(f"{pad}{key}:{comment}")
                lines += block(depth + 1)
            else:
                value = draw(SCALARS)
                if value.startswith("|"):
                    value = value.replace("\n  ", "\n" + pad + "  ")
                    comment = ""
                lines.append(f"{pad}{key}: {value}{comment}")
        return lines

    lines = block(0) if draw(st.integers(0, 5)) else ["# only a comment"]
    text = newline.join(lines)
    return text + newline if draw(st.booleans()) else text


@settings(max_examples=300, deadline=None)
@given(yaml_texts())
@example("mcp_servers:\n  fs: npx\n  env: |\n    block\n    text\n\n# after\n")
@example("mcp_servers: {}\r\nmodel: x")
def test_our_entry_added_and_taken_out_gives_back_the_yaml_text(text: str) -> None:
    try:
        document = YamlDocument(text)
    except DocumentError:
        assume(False)  # a drawn key repeated: not a file Hermes reads
        return
    before = document.value
    try:
        document.set(PATH, ENTRY)
    except DocumentError:  # only where a value that is not a mapping stands on the path
        assert not isinstance(document.get(PATH[:1]), dict)
        assert document.text == text
        return
    assert document.get(PATH) == ENTRY
    again = YamlDocument(document.text)
    again.remove(PATH)
    assert again.value == before
    assert again.text == text
