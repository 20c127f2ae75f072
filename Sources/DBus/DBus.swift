// The DBus module; see docs/architecture.md.
import CDBus
