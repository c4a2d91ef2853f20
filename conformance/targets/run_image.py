"""``python -m conformance.targets.run_image [--engine URL] IMAGE ARGS...``: an image as a command line.

Runs IMAGE's entry point once with ARGS, with no network, and relays its stdout, stderr and exit
code — so checks that run "the target's executable" (``--extensions``, ``--extension-schema``) run
the very binary the image ships. Bounded (60 s); the container is labelled and always removed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

TIMEOUT = 60


def argv_for(image: str) -> list[str]:
    """The command line that runs ``image``'s entry point as this machine's engine would."""
    return [sys.executable, "-m", "conformance.targets.run_image", "--engine", os.environ.get("DOCKER_HOST", ""),
            image]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="run_image")
    p.add_argument("--engine", default="", help="DOCKER_HOST to use (default: the environment's)")
    p.add_argument("image")
    p.add_argument("args", nargs=argparse.REMAINDER)
    ns = p.parse_args(argv)
    if ns.engine:
        os.environ["DOCKER_HOST"] = ns.engine
    from conformance.targets.engine import LABEL, EngineUnavailable, docker_client, owner_label

    try:
        client = docker_client()
    except EngineUnavailable as exc:
        print(f"run_image: {exc}", file=sys.stderr)
        return 125
    container = client.containers.create(ns.image, ns.args, network_mode="none", labels={LABEL: owner_label()})
    try:
        container.start()
        try:
            code = int(container.wait(timeout=TIMEOUT).get("StatusCode", 125))
        except Exception:  # noqa: BLE001 - the wait timed out: the binary hangs
            print(f"run_image: {ns.image} {' '.join(ns.args)} did not exit within {TIMEOUT}s", file=sys.stderr)
            return 124
        sys.stdout.buffer.write(container.logs(stdout=True, stderr=False))
        sys.stderr.buffer.write(container.logs(stdout=False, stderr=True))
        return code
    finally:
        with contextlib.suppress(Exception):
            container.remove(force=True)


if __name__ == "__main__":
    sys.exit(main())
