"""The user's settings file: each value is used where it is in its documented range, and anything else is the
default with one warning naming the key (never an error, never a value the user did not mean)."""

import logging
from pathlib import Path

import pytest

from herdr_link_control import DEFAULT_LOOP_MESSAGES, DEFAULT_TRACE_BYTES, LinkSettings


def load(tmp_path: Path, body: str) -> LinkSettings:
    config = tmp_path / "config.toml"
    config.write_text(body)
    return LinkSettings.load({"HERDR_LINK_CONFIG": str(config), "HOME": str(tmp_path)})


@pytest.mark.parametrize(
    ("value", "used", "warned"),
    [
        ("4096", 4096, False),  # the documented least
        ("4095", DEFAULT_TRACE_BYTES, True),
        ("1000000000000", 10**12, False),  # the largest any setting may be
        ("1000000000001", DEFAULT_TRACE_BYTES, True),
    ],
)
def test_the_traces_size_is_used_from_4096_bytes_to_the_largest_setting(tmp_path, caplog, value, used, warned):
    caplog.set_level(logging.WARNING, "herdr_link")
    settings = load(tmp_path, f'[trace]\nfile = "~/trace.jsonl"\nmax_bytes = {value}\n')
    assert settings.trace_bytes == used and settings.trace_file == tmp_path / "trace.jsonl"
    assert bool(settings.trace_problems) is warned and ("trace.max_bytes" in caplog.text) is warned


def test_a_trace_file_that_is_no_text_switches_the_trace_off_with_a_warning(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "herdr_link")
    settings = load(tmp_path, "[trace]\nfile = 5\n")
    assert settings.trace_file is None and "trace.file must be a path" in caplog.text
    assert settings.trace_problems and "trace off" in settings.describe_trace()


def test_a_content_setting_that_is_not_true_or_false_keeps_messages_text_out(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "herdr_link")
    settings = load(tmp_path, '[trace]\nfile = "~/trace.jsonl"\ncontent = "yes"\n')
    assert settings.trace_content is False and "trace.content must be true or false" in caplog.text
    assert "with messages' text" not in settings.describe_trace()


def test_half_a_message_is_not_a_loop_guard_setting(tmp_path, caplog):
    """``messages = 0.5`` is neither a limit (at least 1) nor ``0`` (off): read as a whole number it would
    switch the guard off without a word."""
    caplog.set_level(logging.WARNING, "herdr_link")
    settings = load(tmp_path, "[loop_guard]\nmessages = 0.5\n")
    assert settings.loop_messages == DEFAULT_LOOP_MESSAGES and "loop_guard.messages" in caplog.text
    assert "loop guard off" not in settings.describe()


def test_the_doctors_lines_say_whether_the_trace_and_the_loop_guard_are_on(tmp_path):
    on = load(tmp_path, '[trace]\nfile = "~/trace.jsonl"\n[loop_guard]\nmessages = 1\nseconds = 30\n')
    assert on.describe_trace().startswith("trace on:") and str(tmp_path / "trace.jsonl") in on.describe_trace()
    assert on.describe().startswith("loop guard: at most 1 ") and "within 30 s" in on.describe()
    off = load(tmp_path, "[loop_guard]\nmessages = 0\n")
    assert off.describe_trace().startswith("trace off") and off.describe().startswith("loop guard off")
