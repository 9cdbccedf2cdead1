"""Run a command with no network but loopback and a resolv.conf pointing at 127.0.0.1.

``python tests/real_hosts/isolate.py CMD...`` re-executes itself inside new user, network and mount
namespaces (``unshare -rnm``; ``-nm`` as root), brings ``lo`` up, bind-mounts a private
``resolv.conf`` over ``/etc/resolv.conf`` and runs CMD. Fails loudly when that is impossible.

``isolate.py --again CMD...`` (already isolated) runs CMD in network and mount namespaces of its own,
set up the same way: each pytest-xdist worker of ``tests/real_hosts`` is started so (``conftest.py``),
so its DNS recorder owns its own ``127.0.0.1:53`` and only its own tests' hosts can reach it.
"""

import os
import subprocess
import sys
import tempfile

MARK = "HERDR_LINK_ISOLATED"
AGAIN = "--again"


def main(argv: list[str]) -> int:
    if argv[:1] == [AGAIN]:
        if os.environ.get(MARK) != "1":
            sys.stderr.write(f"real hosts: {AGAIN} runs only inside isolate.py's namespace\n")
            return 2
        flags = ["-nm"] if os.geteuid() == 0 else ["-rnm"]
        os.execvp("unshare", ["unshare", *flags, "--", sys.executable, __file__, *argv[1:]])
    if os.environ.get(MARK) != "1":
        flags = ["-nm"] if os.geteuid() == 0 else ["-rnm"]
        try:
            done = subprocess.run(
                ["unshare", *flags, "--", sys.executable, __file__, *argv], env={**os.environ, MARK: "1"}
            )
        except FileNotFoundError:
            sys.stderr.write("real hosts: `unshare` (util-linux) is needed to isolate the hosts from the network\n")
            return 2
        if done.returncode == 1 and not argv:
            return 1
        return done.returncode
    try:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        resolv = tempfile.NamedTemporaryFile("w", suffix=".resolv.conf", delete=False)
        resolv.write("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
        resolv.close()
        subprocess.run(["mount", "--bind", resolv.name, "/etc/resolv.conf"], check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.stderr.write(f"real hosts: could not set up the isolated network namespace: {error}\n")
        return 2
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
