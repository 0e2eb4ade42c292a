"""The run directory: its layout, its one writer, its readers, and resolving tables and runs."""
