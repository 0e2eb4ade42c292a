"""An evaluation as an engine that Othello GUIs drive: the NBoard protocol (protocol.py) and the search behind it
(search.py)."""
