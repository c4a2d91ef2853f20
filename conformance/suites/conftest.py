"""Shared by every suite: nothing yet beyond the plugin's fixtures (evidence, run_secrets, run_context)."""
