// The DFUSimulator module; see docs/architecture.md.
