// Tests for PolySignaling.
