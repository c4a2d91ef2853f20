"""The many-target run behind ``agentd-conformance matrix``: many (suite, target) runs, one
requirement × target table (``matrix.yaml``, ``matrix.md``, ``implementation-report.html``).

* :mod:`~conformance.campaign.targets_file` — the targets file: one :class:`Entry` per run, each giving
  its target model;
* :mod:`~conformance.campaign.run` — :func:`run_campaign`: every entry, then the table;
* :mod:`~conformance.campaign.table` — the table: built from the targets' reports, rendered, written;
  no-target-passes flags and regressions against a previous table;
* :mod:`~conformance.campaign.shard` and :mod:`~conformance.campaign.merge` — ``--shard I/N`` and
  ``matrix merge``: the shards' merged table is the one an unsharded run writes.

Not to be confused with the negotiation matrix of the agentd checks (every extension subset × every
method), which is one check's own table.
"""

from conformance.campaign.merge import MergeError, merge_shards
from conformance.campaign.run import run_campaign
from conformance.campaign.shard import shard
from conformance.campaign.table import PreviousError, build_table, load_previous
from conformance.campaign.targets_file import Entry, TargetFileError, load_targets

__all__ = ["Entry", "MergeError", "PreviousError", "TargetFileError", "build_table", "load_previous",
           "load_targets", "merge_shards", "run_campaign", "shard"]
