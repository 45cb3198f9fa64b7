"""UI-free lab catalog, exercises and runner."""
