"""Utilities shared across sklearn-rank (private; nothing here is public API)."""
