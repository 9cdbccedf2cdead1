"""Run a command with no network but loopback and a resolv.conf pointing at 127.0.0.1.

``python tests/real_hosts/isolate.py CMD...`` re-executes itself inside new user, network and mount
namespaces (``unshare -rnm``; ``-nm`` as root), brings ``lo`` up, bind-mounts a private
``resolv.conf`` over ``/etc/resolv.conf`` and runs CMD. Fails loudly when that is impossible.
"""

import os
import subprocess
import sys
import tempfile

MARK = "HERDR_LINK_ISOLATED"


def main(argv: list[str]) -> int:
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
