/// The signals (model input features) this SDK computes, each with the SDK version that
/// introduced it: a model may use only signals introduced at or before the SDK that runs it.
enum SDKSignals {
  static let introduced: [String: String] = introducedSignals()
}

private func introducedSignals() -> [String: String] {
  [
    "battery_level": "3.1.0",
    "crash_free_days": "2.3.0",
    "days_since_install": "1.0.0",
    "days_since_last_prompt": "1.0.0",
    "minutes_in_app": "1.0.0",
    "minutes_in_current_session": "1.0.0",
    "premium_features_tapped": "2.1.0",
    "premium_features_used": "1.0.0",
    "screens_viewed": "1.0.0",
    "session_count": "1.0.0",
    "sessions_during_trial": "1.0.0",
    "sessions_last_7_days": "1.0.0",
    "tasks_completed": "1.0.0",
    "trial_day": "1.0.0",
  ]
}
