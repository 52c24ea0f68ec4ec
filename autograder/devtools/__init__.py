"""Tools for this repository: releasing the assignments, the demo, the benchmark, answer catalogues."""
