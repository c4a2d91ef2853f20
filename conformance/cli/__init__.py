"""The CLI driver: run an a2a-cli under test as an isolated, bounded subprocess, through an adapter.

* :mod:`conformance.cli.runner` — :class:`CliRunner`, :class:`CliResult`, :func:`check_executable`.
* :mod:`conformance.cli.adapter` — :class:`Adapter` (spec grammar -> a tool's own), its errors.
* :mod:`conformance.cli.home` — :class:`IsolatedHome`, the private HOME/XDG tree of a run.
"""

from conformance.cli.adapter import Adapter, AdapterError, Unsupported
from conformance.cli.home import IsolatedHome
from conformance.cli.runner import CliResult, CliRunner, ExecutableNotFound, check_executable

__all__ = [
    "Adapter",
    "AdapterError",
    "CliResult",
    "CliRunner",
    "ExecutableNotFound",
    "IsolatedHome",
    "Unsupported",
    "check_executable",
]
