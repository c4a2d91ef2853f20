"""What a CLI run cost: the tool's own process time against the harness's wall time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

#: Below this much CLI process time the overhead ratio is noise (a tool that exits at once gives 100000 %).
MEANINGFUL_CLI_SECONDS = 1.0


class Cost(NamedTuple):
    cli_seconds: float
    invocations: int
    wall_seconds: float
    jobs: int

    @property
    def overhead(self) -> float | None:
        """Harness overhead: (wall x jobs - the CLI's own time) / the CLI's own time; None when the CLI's own
        time is too short (under :data:`MEANINGFUL_CLI_SECONDS`) for the ratio to say anything."""
        if self.cli_seconds < MEANINGFUL_CLI_SECONDS:
            return None
        return (self.wall_seconds * self.jobs - self.cli_seconds) / self.cli_seconds

    def line(self) -> str:
        over = self.overhead
        share = (f"harness overhead {over:.0%}" if over is not None
                 else "harness overhead not stated (the CLI's own time is too short to compare with)")
        return (f"CLI process time: {self.cli_seconds:.1f} s over {self.invocations} invocation(s); run wall time "
                f"{self.wall_seconds:.1f} s with --jobs {self.jobs}; {share}")


def cli_process_seconds(report_dir: Path) -> tuple[float, int]:
    """Sum of the durations of every CLI invocation recorded in the evidence, and their count."""
    total, count = 0.0, 0
    for path in (report_dir / "evidence").rglob("*.json"):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for att in doc.get("attachments", []):
            if str(att.get("name", "")).startswith("cli run ") and isinstance(att.get("data"), dict):
                total += float(att["data"].get("duration_s") or 0.0)
                count += 1
    return total, count
