"""Benchmarks: timings live here, never in tests."""
