// The NordicDFU library; see docs/architecture.md.
