// Tests for PolyMedia.
