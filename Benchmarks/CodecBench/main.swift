print("CodecBench: not yet written")
