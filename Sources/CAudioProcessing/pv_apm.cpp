// The C API of pv_apm.h over webrtc::AudioProcessing (0.3). C++ stays inside this file.
#include "pv_apm.h"

#include <cstring>
#include <memory>
#include <new>

#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

using webrtc::AudioProcessing;

struct pv_apm {
    std::unique_ptr<AudioProcessing> processor;
    int sample_rate;
    int channels;
    bool aec;
    // Reused for every block so processing never allocates.
    webrtc::AudioFrame frame;
};

namespace {

bool valid_block(const pv_apm *apm, size_t frames) {
    return frames == static_cast<size_t>(apm->sample_rate / 100);
}

void load(pv_apm *apm, const int16_t *samples, size_t frames) {
    webrtc::AudioFrame &frame = apm->frame;
    frame.sample_rate_hz_ = apm->sample_rate;
    frame.num_channels_ = apm->channels;
    frame.samples_per_channel_ = frames;
    std::memcpy(frame.data_, samples, frames * apm->channels * sizeof(int16_t));
}

bool configure(AudioProcessing &processor, bool aec, bool ns, bool agc) {
    // The high-pass filter removes DC and rumble that would otherwise disturb the other components.
    if (processor.high_pass_filter()->Enable(aec || ns || agc) != 0) return false;
    webrtc::EchoCancellation *echo = processor.echo_cancellation();
    if (echo->Enable(aec) != 0) return false;
    if (aec) {
        // Moderate (the library's default): high suppression removed no more steady echo in our
        // tests but cut the near end's voice during double talk (barge-in) by 9 dB instead of 6.
        if (echo->set_suppression_level(webrtc::EchoCancellation::kModerateSuppression) != 0) return false;
        if (echo->enable_metrics(true) != 0) return false;
        if (echo->enable_delay_logging(true) != 0) return false;
    }
    webrtc::NoiseSuppression *noise = processor.noise_suppression();
    if (noise->Enable(ns) != 0) return false;
    if (ns && noise->set_level(webrtc::NoiseSuppression::kHigh) != 0) return false;
    webrtc::GainControl *gain = processor.gain_control();
    if (agc) {
        // Digital gain only: the library never drives the device's analog volume here.
        if (gain->set_mode(webrtc::GainControl::kAdaptiveDigital) != 0) return false;
        if (gain->set_target_level_dbfs(3) != 0) return false;
        if (gain->set_compression_gain_db(9) != 0) return false;
        if (gain->enable_limiter(true) != 0) return false;
    }
    return gain->Enable(agc) == 0;
}

}  // namespace

extern "C" pv_apm *pv_apm_create(int sample_rate, int channels, int aec, int ns, int agc) {
    if (sample_rate != 8000 && sample_rate != 16000 && sample_rate != 32000 && sample_rate != 48000) return nullptr;
    if (channels != 1 && channels != 2) return nullptr;
    webrtc::Config config;
    // Device delays are only roughly known: let the canceller estimate the delay and use the
    // longer filter that tolerates it (as Chrome configured this version).
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    std::unique_ptr<AudioProcessing> processor(AudioProcessing::Create(config));
    if (!processor) return nullptr;
    webrtc::StreamConfig stream(sample_rate, channels);
    webrtc::ProcessingConfig processing = {{stream, stream, stream, stream}};
    if (processor->Initialize(processing) != AudioProcessing::kNoError) return nullptr;
    if (!configure(*processor, aec != 0, ns != 0, agc != 0)) return nullptr;
    pv_apm *apm = new (std::nothrow) pv_apm;
    if (apm == nullptr) return nullptr;
    apm->processor = std::move(processor);
    apm->sample_rate = sample_rate;
    apm->channels = channels;
    apm->aec = aec != 0;
    return apm;
}

extern "C" int pv_apm_process_render(pv_apm *apm, const int16_t *samples, size_t frames) {
    if (apm == nullptr || samples == nullptr) return AudioProcessing::kNullPointerError;
    if (!valid_block(apm, frames)) return AudioProcessing::kBadDataLengthError;
    load(apm, samples, frames);
    return apm->processor->ProcessReverseStream(&apm->frame);
}

extern "C" int pv_apm_process_capture(pv_apm *apm, int16_t *samples, size_t frames, int delay_ms) {
    if (apm == nullptr || samples == nullptr) return AudioProcessing::kNullPointerError;
    if (!valid_block(apm, frames)) return AudioProcessing::kBadDataLengthError;
    load(apm, samples, frames);
    // Out-of-range delays are clamped by the library and reported as a non-fatal warning.
    int delay_result = apm->processor->set_stream_delay_ms(delay_ms < 0 ? 0 : delay_ms);
    if (delay_result != AudioProcessing::kNoError && delay_result != AudioProcessing::kBadStreamParameterWarning)
        return delay_result;
    int result = apm->processor->ProcessStream(&apm->frame);
    if (result != AudioProcessing::kNoError) return result;
    std::memcpy(samples, apm->frame.data_, frames * apm->channels * sizeof(int16_t));
    return 0;
}

extern "C" void pv_apm_get_stats(pv_apm *apm, pv_apm_stats *stats) {
    if (stats == nullptr) return;
    std::memset(stats, 0, sizeof *stats);
    stats->delay_median_ms = -1;
    if (apm == nullptr || !apm->aec) return;
    webrtc::EchoCancellation *echo = apm->processor->echo_cancellation();
    webrtc::EchoCancellation::Metrics metrics;
    if (echo->GetMetrics(&metrics) == AudioProcessing::kNoError) {
        stats->valid = 1;
        stats->echo_return_loss = metrics.echo_return_loss.average;
        stats->echo_return_loss_enhancement = metrics.echo_return_loss_enhancement.average;
        stats->residual_echo_return_loss = metrics.residual_echo_return_loss.average;
    }
    int median = -1;
    int deviation = 0;
    if (echo->GetDelayMetrics(&median, &deviation) == AudioProcessing::kNoError) {
        stats->delay_median_ms = median;
        stats->delay_std_ms = deviation;
    }
    stats->stream_has_echo = echo->stream_has_echo() ? 1 : 0;
}

extern "C" void pv_apm_destroy(pv_apm *apm) { delete apm; }
