"""What the CLI half's checks stand on, above the CLI driver (:mod:`conformance.cli`) and the judge:

* :mod:`conformance.clicheck.invocations` — :class:`Cli`, the fixture's view of the tool under test (one
  invocation through the adapter, its evidence, the blame of a flag the tool lacks);
* :mod:`conformance.clicheck.features` — which requirement owns each flag and command (the blame table);
* :mod:`conformance.clicheck.output` — readers of what a tool printed (identifiers, states, JSON lines);
* :mod:`conformance.clicheck.interactive`, :mod:`conformance.clicheck.background` — a tool driven at a
  terminal, a tool left running while the check acts;
* :mod:`conformance.clicheck.artifact_probe`, :mod:`conformance.clicheck.transport_checks` — shared probes;
* :mod:`conformance.clicheck.adapter_check` — ``adapter check``: an adapter against its tool's help.
"""
