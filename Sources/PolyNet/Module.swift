// PolyNet — see docs/ARCHITECTURE.md for what this layer holds.
