"""Looking at results: evaluation protocols, statistics, summaries, figures, benchmarks."""
