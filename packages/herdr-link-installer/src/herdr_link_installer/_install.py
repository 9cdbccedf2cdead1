"""Install Herdr Link's OpenCode plugin file: verify, back up, replace whole, check, put back on failure.

The same install core as the other installers (``herdr_link_control.userfiles``): what the file held
is backed up under ``<config dir>/backups/`` by its path; the new bytes are written beside it as
``herdr-link.js.herdr-link.partial`` (a name OpenCode never loads), checked against the manifest, and
put in place in one step, never over a write this run did not see; a failed check puts back what was
there. Guarantee: after any run (successful, failed or killed at any step) the plugin file holds either
what it held before or the manifest's bytes, and a partial copy a killed run left is removed by the
next. The plugin is a file Herdr Link owns whole: a symbolic link or a folder at its place is refused.
"""

import hashlib
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import semver

from herdr_link_control.userfiles import (
    ChangedMeanwhile,
    Replaced,
    backups_root,
    bridge_command,
    clear_note_partial,
    clear_partials,
    failure_reason,
    folders_to_make,
    location_command,
    location_file,
    note_made_folders,
    put_back,
    replace_file,
    write_location_file,
)
from herdr_link_opencode_bridge import MANIFEST_FILE, classify_plugin, packaged_dir

from ._paths import (
    Platform,
    ProgramFailed,
    global_config_dir,
    herdr_link_plugins,
    opencode_version,
    plugin_target,
    stderr_tail,
)
from ._say import teller, to_stderr
from ._typescript import is_typescript_bundle, note_replaced

__all__ = [
    "EXIT_DUPLICATE",
    "InstallError",
    "Plan",
    "install",
    "plan_install",
    "plugin_package_version",
    "plugin_version_ok",
    "opencode_major",
    "opencode_runtime",
    "runtime_note",
]

RUNTIME_NAMES: Final = {"v1": "OpenCode 1.x", "v2": "OpenCode 2"}
"""What ``--runtime v1|v2`` names: which OpenCode the user runs (the one bundle loads in both)."""
V1_PLUGIN_RANGE: Final = "^1.18.13"
"""The ``@opencode-ai/plugin`` range the V1 bundle imports from (npm caret rules: no prereleases)."""
FOLDERS_NOTE: Final = "opencode-folders.json"
"""Beside the backups: the folders an install made for the plugin, taken out by uninstall when empty."""
EXIT_DUPLICATE: Final = 4
"""Exit status of an install that succeeded while another Herdr Link file stays where OpenCode loads it."""


Runtime = Literal["v1", "v2"]
"""Which OpenCode the user runs: 1.x (``v1``) or 2 (``v2``)."""


class InstallError(Exception):
    """Raised when the installation cannot go ahead or failed; the message says what happened."""


@dataclass
class Plan:
    """Everything a run would do, decided before anything is written."""

    runtime: Runtime
    """Which OpenCode the user runs (:func:`opencode_runtime`): whose half's prerequisites are checked."""
    config: Path
    target: Path
    bundle: bytes
    sha256: str
    existing: str  # "none", "current", "older", "modified", "typescript", "foreign"
    before: bytes | None = None
    """What the target held when planned (``None``: no file): replaced only while it still holds it."""
    needs_confirmation: str = ""
    duplicates: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)
    """Why this install must not go ahead (no confirmation overrides them); shown after the plan."""
    opencode: str | None = None
    """The version of the OpenCode on PATH, when there is one."""

    def describe(self) -> list[str]:
        lines = [
            f"OpenCode config: {self.config}",
            f"target: {self.target}",
            f"bundle: sha256 {self.sha256} (loads in OpenCode 1.x and 2; checked for {RUNTIME_NAMES[self.runtime]})",
        ]
        lines.append(
            {
                "none": "nothing installed yet: the bundle will be written",
                "current": "the current bundle is already installed: it stays as it is",
                "older": "an older Herdr Link bundle is installed: it will be replaced (backup kept)",
                "modified": "a modified Herdr Link bundle is installed: it will be replaced (backup kept)",
                "typescript": "the TypeScript Herdr Link's bundle is installed: it will be replaced (backup kept; "
                "--uninstall puts it back)",
                "foreign": "a file of unknown origin is installed: it will be replaced (backup kept)",
            }[self.existing]
        )
        lines += [
            f"duplicate: OpenCode also loads {path}, which starts a second bridge: remove it"
            for path in self.duplicates
        ]
        return lines + self.notes


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _packaged_bundle() -> tuple[bytes, str]:
    manifest = json.loads((packaged_dir() / MANIFEST_FILE).read_text(encoding="utf-8"))
    if len(manifest["bundles"]) != 1:
        raise InstallError("the packaged manifest does not name exactly one bundle: reinstall herdr-link")
    [entry] = manifest["bundles"]
    data = (packaged_dir() / entry["file"]).read_bytes()
    if _sha(data) != entry["sha256"]:
        raise InstallError("the packaged bundle does not match its manifest's SHA-256: reinstall herdr-link")
    return data, entry["sha256"]


def _existing(target: Path) -> tuple[str, bytes | None]:
    """What is at ``target`` (``none``, ``current``, ``older``, ``modified``, ``typescript`` or ``foreign``)
    and its bytes.

    Raises:
        InstallError: a symbolic link, a folder or no regular file (a FIFO: never opened) is there.
    """
    if target.is_symlink():
        raise InstallError(
            f"{target} is a symbolic link: Herdr Link owns this file whole and does not write through a link; "
            "replace it by hand. Nothing was changed"
        )
    if target.is_dir():
        raise InstallError(f"{target} is a folder, not a file: nothing was changed")
    if not target.exists():
        return "none", None
    if not stat.S_ISREG(target.stat().st_mode):  # checked without opening it: a FIFO would wait for ever
        raise InstallError(f"{target} is not a regular file (a FIFO, a device or a socket): nothing was changed")
    data = target.read_bytes()
    state, _ = classify_plugin(data)
    if state in ("current", "older", "modified"):
        return state, data
    return ("typescript" if is_typescript_bundle(data) else "foreign"), data


def plugin_version_ok(text: str) -> bool:
    """Whether a version satisfies :data:`V1_PLUGIN_RANGE` the way npm reads ``^1.18.13``: at least
    1.18.13, below 2.0.0, and no prerelease (``1.18.13-rc`` is before 1.18.13; ``1.19.0-beta`` is
    outside a caret range whose bound has no prerelease)."""
    try:
        found = semver.Version.parse(text)
    except (ValueError, TypeError):
        return False
    return found.prerelease is None and found.match(">=1.18.13") and found.match("<2.0.0")


_RESOLVE: Final = """
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
let dir;
try { dir = dirname(fileURLToPath(import.meta.resolve("@opencode-ai/plugin"))); } catch { process.exit(3); }
for (;;) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (manifest.name === "@opencode-ai/plugin") { process.stdout.write(String(manifest.version)); process.exit(0); }
  } catch {}
  const up = dirname(dir);
  if (up === dir) process.exit(4);
  dir = up;
}
"""


def _walk_node_modules(directory: Path) -> str | None:
    for base in (directory, *directory.parents):
        manifest = base / "node_modules" / "@opencode-ai" / "plugin" / "package.json"
        if manifest.is_file():
            try:
                value = json.loads(manifest.read_text(encoding="utf-8")).get("version")
            except (OSError, ValueError):
                return None
            return value if isinstance(value, str) else None
    return None


def plugin_package_version(directory: Path) -> str | None:
    """The ``@opencode-ai/plugin`` version an ES module in ``directory`` imports, if it resolves.

    Node resolves it (``import.meta.resolve`` from that directory, so ``exports`` and the
    ``node_modules`` walk apply as Node applies them); without Node, the ``node_modules`` walk alone.

    Raises:
        ProgramFailed: Node is on PATH but failed to run the check, and the walk found nothing.
    """
    node = shutil.which("node")
    if node is None:
        return _walk_node_modules(directory)
    base = next((d for d in (directory, *directory.parents) if d.is_dir()), directory)
    try:
        done = subprocess.run(
            [node, "--input-type=module", "-e", _RESOLVE],
            cwd=base,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        failure = f"Node ({node}) did not answer within 60 s"
    except OSError as error:
        failure = f"Node ({node}) cannot be run: {error.strerror or error}"
    else:
        if done.returncode == 0:
            return done.stdout.strip() or None
        if done.returncode in (3, 4):  # the check's own answer: it does not resolve
            return None
        failure = f"Node ({node}) failed to run the check (exit status {done.returncode}){stderr_tail(done.stderr)}"
    walked = _walk_node_modules(directory)
    if walked is None:
        raise ProgramFailed(failure)
    return walked


def opencode_runtime(flag: str | None, opencode: str | None) -> Runtime:
    """Which OpenCode the user runs, the one place it is decided: ``--runtime`` when given, else the
    OpenCode on PATH (2 from its major version 2 on), else OpenCode 1.x."""
    if flag == "v1":
        return "v1"
    if flag == "v2":
        return "v2"
    major = opencode_major(opencode)
    return "v2" if major is not None and major >= 2 else "v1"


def runtime_note(runtime: Runtime, opencode: str | None) -> str | None:
    """What to know when the OpenCode of that version is not the runtime the user named, or ``None``.

    The bundle holds both halves (OpenCode 1.x's ``server`` and OpenCode 2's ``setup``), so none is
    refused: the note says which half that OpenCode will run.
    """
    major = opencode_major(opencode)
    if major is None:
        return None
    if runtime == "v2" and major < 2:
        return f"OpenCode {opencode} is 1.x: it runs the file's OpenCode 1.x half (server), needing @opencode-ai/plugin"
    if runtime == "v1" and major >= 2:
        return f"OpenCode {opencode} is {major}.x: it runs the file's OpenCode 2 half (setup)"
    return None


def opencode_major(opencode: str | None) -> int | None:
    """The major version of what ``opencode --version`` reported, or ``None`` when it reported none."""
    head = (opencode or "").split(".", 1)[0]
    return int(head) if head.isdigit() else None


def plan_install(
    runtime_flag: str | None,
    environ: Mapping[str, str],
    home: Path,
    cwd: Path,
    platform: Platform,
    *,
    run: Callable[[list[str]], str | None] | None = None,
    force_runtime: bool = False,
) -> Plan:
    """Decide everything; write nothing. ``run`` runs ``opencode`` (injectable for tests).

    ``runtime_flag`` is ``--runtime`` (``v1``, ``v2``, or ``None``: the OpenCode on PATH decides, see
    :func:`opencode_runtime`). The bundle loads in OpenCode 1.x and 2, so no runtime is refused
    (``force_runtime`` is kept for earlier commands and only noted). The OpenCode 1.x half needs
    ``@opencode-ai/plugin`` in range, resolvable from the plugins folder: a blocker for OpenCode 1.x
    and whenever the installed OpenCode is 1.x.

    Raises:
        InstallError: when the bundle cannot be verified or the target is a symlink.
    """
    bundle, digest = _packaged_bundle()
    config = global_config_dir(environ, home, platform, run=run)
    target = plugin_target(config)
    try:
        opencode = opencode_version(run)
        failed = None
    except ProgramFailed as failure:
        opencode, failed = None, str(failure)
    runtime = opencode_runtime(runtime_flag, opencode)
    existing, before = _existing(target)
    plan = Plan(runtime, config, target, bundle, digest, existing, before)
    plan.opencode = opencode
    if plan.existing in ("modified", "foreign", "typescript"):
        plan.needs_confirmation = {
            "modified": "replace a Herdr Link bundle that was edited",
            "foreign": f"replace {target}, which is not Herdr Link's",
            "typescript": "replace the TypeScript Herdr Link's bundle (--uninstall puts it back)",
        }[plan.existing]
    note = runtime_note(runtime, plan.opencode)
    if failed is not None:
        plan.notes.append(f"note: {failed}, so which OpenCode runs the file was not checked")
    elif note:
        plan.notes.append(f"note: {note}")
    if force_runtime:
        plan.notes.append("note: --force-runtime is no longer needed: the file loads in OpenCode 1.x and 2")
    major = opencode_major(plan.opencode)
    if runtime == "v1" or (major is not None and major < 2):  # the 1.x half will run
        try:
            found, where = plugin_package_version(target.parent), ""
        except ProgramFailed as failure:
            found, where = None, f"{failure}, so it is unknown whether it resolves"
        if found is None or not plugin_version_ok(found):
            where = where or (f"found {found}" if found else "it does not resolve")
            plan.blockers.append(
                f"the V1 bundle needs @opencode-ai/plugin {V1_PLUGIN_RANGE} resolvable from {target.parent} "
                f"({where}): start OpenCode once while online (it installs the package into {config}), or run "
                f"`{_npm_install_command(config, platform)}`"
            )
    every = herdr_link_plugins(environ, home, cwd, platform, run=run, config=config)  # asked once, above
    plan.duplicates = [item.path for item in every if item.path != target]
    if runtime == "v2":
        plan.notes.append("OpenCode 2 support is experimental.")
    return plan


def _npm_install_command(config: Path, platform: Platform) -> str:
    """One command that puts the V1 plugin package into ``config`` from any folder (npm makes the
    folder when OpenCode has not yet)."""
    argv = ["npm", "install", "--prefix", str(config), "@opencode-ai/plugin@1.18.33"]
    return subprocess.list2cmdline(argv) if platform.system == "windows" else shlex.join(argv)


def _export_shape_ok(data: bytes) -> bool:
    """One default export with both runtimes' entries: every bundle has this shape."""
    shape = re.compile(r'^export default \{ id: "herdr-link", server: [A-Za-z]+, setup: [A-Za-z]+ \};$', re.MULTILINE)
    return len(shape.findall(data.decode("utf-8", "replace"))) == 1 and data.count(b"\nexport ") == 1


def _node_import_ok(path: Path) -> bool | None:
    """Import the file with Node when it is there (both entries must be functions): ``None`` when Node
    is missing."""
    node = shutil.which("node")
    if node is None:
        return None
    script = (
        "import(process.argv[1]).then((m) => { const keys = Object.keys(m); "
        "if (keys.length !== 1 || typeof m.default?.server !== 'function' "
        "|| typeof m.default?.setup !== 'function') process.exit(3); })"
    )
    try:
        done = subprocess.run(
            [node, "--input-type=module", "-e", script, path.as_uri()], capture_output=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _check_copy(path: Path, sha256: str) -> None:
    """The file at ``path`` is the manifest's bundle: its SHA-256 and its one export.

    Raises:
        OSError: it is not (a partial copy is then never put in place; an installed file is put back).
    """
    data = path.read_bytes()
    if _sha(data) != sha256 or not _export_shape_ok(data):
        what = "the copy written" if path.name.endswith(".partial") else "the installed file"
        raise OSError(f"{what} does not match the manifest")


@dataclass
class _State:
    """What each file is now, for the last line an install prints (always true, whatever failed)."""

    target: Path
    plugin: str = "unchanged"
    backup: Path | None = None
    location: str = "unchanged"

    def summary(self) -> str:
        if self.plugin == "unchanged":
            return f"state: {self.target} is unchanged; bridge location {self.location}"
        backup = f"backup {self.backup}" if self.backup else "no backup (there was no earlier file)"
        return f"state: {self.target} is {self.plugin}; {backup}; bridge location {self.location}"


def _put_back(replaced: Replaced, state: _State) -> None:
    """Put back what was there before; ``state`` says what happened, including a failed put-back."""
    try:
        state.plugin = put_back(replaced)
    except ChangedMeanwhile as error:
        state.plugin = f"another program's write, left as it is ({error})"
    except OSError as error:
        how = f"copy {replaced.backup} over it" if replaced.backup is not None else "delete it"
        state.plugin = (
            f"the new bundle, which failed its check, and rolling back failed ({error.strerror or error}): {how}"
        )


def reinstall_command(runtime: Runtime) -> str:
    """The command that installs again for ``runtime`` whatever OpenCode is on PATH (recorded in the
    bridge location for the doctor's fix)."""
    return f"herdr-link-opencode-install --runtime {runtime}"


def repair_location(environ: Mapping[str, str], home: Path, runtime: Runtime) -> str:
    """Point the bridge location file at this installation's bridge when the command it names no longer
    exists (the tool environment that wrote it was removed), so that reinstalling, the doctor's fix,
    repairs it even when the plugin file itself is current. Returns what was done ("" for nothing)."""
    location = location_file(environ, home)
    named = location_command(location)
    if named is not None and (os.sep not in named[0] or os.access(named[0], os.X_OK)):
        return ""
    command = bridge_command()
    if not Path(command[0]).exists():
        return ""
    write_location_file(location, command, user="opencode", reinstall=reinstall_command(runtime))
    return f"repaired: {location} -> {' '.join(command)} (the bridge it named is gone)"


def _leftovers(target: Path, backups: Path) -> list[Path]:
    """Remove the partial copies a killed run left: beside the plugin, among its backups, of the note."""
    return [*clear_partials(target, backups=backups), *clear_note_partial(backups.parent / FOLDERS_NOTE)]


def _keep_current(
    plan: Plan, environ: Mapping[str, str], home: Path, tell: Callable[[str], None], refuse: Callable[[str], None]
) -> int:
    """The plugin is already current: clear what a killed run left, repair a bridge location whose tool
    was removed, and say what each file is."""
    location = "unchanged"
    try:
        for left in _leftovers(plan.target, backups_root(environ, home)):
            tell(f"removed: {left} (a partial copy a killed run left)")
        repaired = repair_location(environ, home, plan.runtime)
        if repaired:
            tell(repaired)  # the plugin was current; the bridge it starts was gone (its tool removed)
            location = repaired.removeprefix("repaired: ")
    except OSError as error:
        refuse(f"error: {failure_reason(error)}")
        tell(f"state: {plan.target} is the current bundle (unchanged); bridge location {location}")
        return 1
    tell(f"state: {plan.target} is the current bundle (unchanged); bridge location {location}")
    return EXIT_DUPLICATE if plan.duplicates else 0


def install(
    plan: Plan,
    *,
    confirmed: bool,
    environ: Mapping[str, str],
    home: Path,
    say: Callable[[str], None],
    complain: Callable[[str], None] | None = None,
    show_plan: bool = True,
) -> int:
    """Carry out ``plan``; returns the exit status: 0 done or nothing to do, 1 refused or rolled
    back, :data:`EXIT_DUPLICATE` installed while another Herdr Link file stays where OpenCode loads it.

    ``say`` gets the plan (unless ``show_plan`` is false: the caller showed it) and what happens,
    ending with a ``state:`` line that says what each file is now; ``complain`` (default: stderr)
    gets refusals and errors.
    """
    refuse = complain or to_stderr
    if show_plan:
        for line in plan.describe():
            say(line)
    if plan.blockers:
        for blocker in plan.blockers:
            refuse(f"refused: {blocker}")
        refuse("nothing was changed")
        return 1
    if plan.existing == "current":
        return _keep_current(plan, environ, home, teller(say), teller(refuse))
    if plan.needs_confirmation and not confirmed:
        refuse(f"refused without confirmation: {plan.needs_confirmation} (run again with --yes); nothing was changed")
        return 1

    tell = teller(say)
    backups = backups_root(environ, home)
    state = _State(plan.target)
    replaced: Replaced | None = None
    made = folders_to_make(plan.target)
    try:
        for left in _leftovers(plan.target, backups):
            tell(f"removed: {left} (a partial copy a killed run left)")
        replaced = replace_file(
            plan.target, plan.before, plan.bundle, backups=backups, verify=lambda copy: _check_copy(copy, plan.sha256)
        )
        state.plugin, state.backup = "the new bundle, not yet checked", replaced.backup
        if replaced.backup is not None:
            tell(f"backup: {replaced.backup}")
        _check_copy(plan.target, plan.sha256)
        try:
            resolvable = plan.runtime == "v2" or plugin_package_version(plan.target.parent)
        except ProgramFailed as failure:
            raise OSError(f"the installed plugin cannot be checked: {failure}") from None
        if resolvable and shutil.which("node") is None:
            tell("not checked: Node is not on PATH, so whether the installed plugin imports was not tried")
        elif resolvable:
            tell("checking that Node can import the installed plugin (up to 60 s)…")
            if _node_import_ok(plan.target) is False:
                raise OSError("Node cannot import the installed file with exactly one plugin export")
            tell("checked: Node imports the installed plugin, with exactly one plugin export")
        state.plugin = "the current bundle"
    except OSError as error:
        if replaced is not None:  # this run replaced the file: put back what was there (or nothing)
            _put_back(replaced, state)
        teller(refuse)(f"error: {failure_reason(error)}")
        tell(state.summary())
        return 1
    tell(f"installed: {plan.target} (checked for {RUNTIME_NAMES[plan.runtime]})")
    note_made_folders(backups.parent / FOLDERS_NOTE, plan.target, made)  # so that uninstall can take them out
    if plan.existing == "typescript" and state.backup is not None:
        try:
            note_replaced(environ, home, plan.target, state.backup)
        except OSError as error:
            tell(f"could not note the TypeScript bundle's backup for --uninstall ({error.strerror or error}): "
                 f"it is {state.backup}")  # fmt: skip
    try:
        location = location_file(environ, home)
        command = bridge_command()
        if not Path(command[0]).exists():
            state.location = f"not written ({command[0]} does not exist; set HERDR_LINK_BRIDGE)"
        elif write_location_file(location, command, user="opencode", reinstall=reinstall_command(plan.runtime)):
            state.location = f"{location} -> {' '.join(command)}"
        else:
            state.location = f"{location}, already pointing at {' '.join(command)}"
    except OSError as error:
        state.location = f"not written: {failure_reason(error)}"
        teller(refuse)(f"error: the bridge location was not written: {failure_reason(error)}")
        tell(state.summary())
        return 1
    tell(state.summary())
    return EXIT_DUPLICATE if plan.duplicates else 0
