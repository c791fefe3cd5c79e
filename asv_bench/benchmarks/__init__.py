"""asv benchmarks of sklearn-rank (run from asv_bench/: ``asv run``)."""
