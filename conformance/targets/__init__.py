"""Targets: every kind of thing the harness checks (agent URL, unix socket, launched reference, container, CLI)."""
