// Tests for PolyNet.
