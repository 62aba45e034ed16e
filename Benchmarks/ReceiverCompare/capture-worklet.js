// Passes what the page's audio graph renders (the remote track as libwebrtc plays it) to the page in blocks.
class Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.block = new Float32Array(4800);
    this.filled = 0;
  }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) {
      for (let i = 0; i < channel.length; i++) {
        this.block[this.filled++] = channel[i];
        if (this.filled === this.block.length) {
          this.port.postMessage(this.block);
          this.block = new Float32Array(4800);
          this.filled = 0;
        }
      }
    }
    return true;
  }
}
registerProcessor("capture", Capture);
