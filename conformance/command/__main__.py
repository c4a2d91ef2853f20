"""``python -m conformance.command``: the ``agentd-conformance`` command."""

import sys

from conformance.command import main

sys.exit(main())
