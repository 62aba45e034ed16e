// Tests for PolyVoiceBridge.
