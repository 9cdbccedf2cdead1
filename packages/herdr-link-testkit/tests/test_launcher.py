"""The simulated ``herdr`` executable: cheap to launch, public modules only, faithful without a server."""

import ast
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import herdr_link_testkit
from herdr_link_testkit import Fault, HerdrSim

PACKAGE = Path(herdr_link_testkit.__file__).resolve().parent


def test_a_launch_imports_nothing_heavy():
    code = (
        f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r}); import herdr_link_testkit.fake_herdr; "
        "print(sorted(m for m in ('json', '_json', 're', 'socket', '_socket', 'typing', 'enum', 'selectors',"
        " 'threading') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-SE", "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def test_no_module_imports_a_private_interpreter_module():
    found = []
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            found += [f"{path.name}: {n}" for n in names if n.startswith("_") and n != "__future__"]
    assert found == []


def test_without_a_server_the_error_is_the_json_real_herdr_prints(tmp_path):
    odd = tmp_path / 'dir "quoted" \\ back\tslash ü'
    odd.mkdir()
    launcher = herdr_link_testkit.write_launcher(tmp_path / "bin" / "herdr")
    env = {"PATH": "/usr/bin:/bin", "HERDR_SOCKET_PATH": str(odd / "herdr.sock")}
    done = subprocess.run([str(launcher), "agent", "get", "x"], env=env, capture_output=True, text=True, timeout=60)
    message = f"no herdr server is running at {odd / 'herdr.sock'}; run `herdr` to start or attach it"
    expected = {"id": "cli:agent:get", "error": {"code": "server_not_running", "message": message}}
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == json.dumps(expected, separators=(",", ":"), ensure_ascii=False) + "\n"
    usage = subprocess.run([str(launcher), "agent", "get"], env=env, capture_output=True, text=True, timeout=60)
    assert (usage.returncode, usage.stderr) == (2, "usage: herdr agent get <target>\n")


def test_a_killed_launcher_sends_nothing_more(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace("/tmp")
    herdr_sim.fault_cli(["agent", "list"], Fault("delay", seconds=3.0))  # the kill lands well inside it
    launched = subprocess.Popen([herdr_sim.bin_path, "agent", "list"], env=herdr_sim.env(pane))
    deadline = time.monotonic() + 30
    while ("agent", "list") not in herdr_sim.log.commands() and time.monotonic() < deadline:
        time.sleep(0.02)
    launched.send_signal(signal.SIGKILL)
    launched.wait(timeout=30)
    time.sleep(4.0)  # past the delay: a live invocation would have sent its ping and request by now
    assert "agent.list" not in herdr_sim.log.methods()
    assert not any(p.suffix in (".req", ".rep") for p in Path(herdr_sim.socket_path + ".cli").iterdir())


def test_a_large_argument_and_many_launches_at_once_are_answered(herdr_sim: HerdrSim):
    pane = herdr_sim.create_workspace("/tmp")
    herdr_sim.add_agent(pane, "claude", name="brain")
    text = "x" * 131_000
    launches = [
        subprocess.Popen([herdr_sim.bin_path, "agent", "prompt", "brain", f"{i}{text}"], env=herdr_sim.env(pane),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for i in range(20)
    ]  # fmt: skip
    results = [launch.communicate(timeout=120) for launch in launches]
    assert [launch.returncode for launch in launches] == [0] * 20, results[0]
    assert sorted(d.text[:2] for d in herdr_sim.deliveries(pane)) == sorted(f"{i}x"[:2] for i in range(20))
    assert os.listdir(herdr_sim.socket_path + ".cli") == ["requests"]


def test_the_packages_lazy_table_and_its_type_imports_agree():
    """The launcher imports this package, so its face loads names with the standard library only."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    table = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["_EXPORTS"]
    )
    typed: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If):
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.level == 1:
                    typed.setdefault(statement.module or "", []).extend(a.name for a in statement.names)
    assert {m: sorted(n) for m, n in typed.items()} == {m: sorted(n) for m, n in table.items()}
    assert sorted(herdr_link_testkit.__all__) == sorted(n for names in table.values() for n in names)
    assert all(getattr(herdr_link_testkit, name) is not None for name in herdr_link_testkit.__all__)
