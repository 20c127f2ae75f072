// The BlueZ module; see docs/architecture.md.
