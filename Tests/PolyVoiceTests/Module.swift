// Tests for PolyVoice.
