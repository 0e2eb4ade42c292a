"""Playing many games: seeds, plans, the one executor, the Dask cluster."""
