// Tests for PolyAudio.
