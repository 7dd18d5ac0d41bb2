"""The Flask dashboard: the live board, verdicts and the score sheet in a browser."""
