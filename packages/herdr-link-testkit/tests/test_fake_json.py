import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from herdr_link_testkit import fake_herdr

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(exclude_categories=())),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(JSON)
def test_fast_encoder_matches_json_dumps(value):
    assert fake_herdr.dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert fake_herdr.dumps(value, sort_keys=True) == json.dumps(
        value, separators=(",", ":"), ensure_ascii=False, sort_keys=True
    )


@given(JSON)
def test_fast_decoder_matches_json_loads(value):
    text = json.dumps(value, ensure_ascii=False)
    assert fake_herdr.loads(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", "{", "nope", '{"a":1} x', "[1,]"])
def test_fast_decoder_refuses_what_json_refuses(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        fake_herdr.loads(text)


def test_loading_the_cli_module_imports_nothing_heavy():
    import subprocess

    code = (
        f"import sys; sys.path.insert(0, {str(Path(fake_herdr.__file__).parent)!r}); import fake_herdr; "
        "print(sorted(m for m in ('json', 're', 'socket', 'typing', 'enum', 'selectors') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-SE", "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
