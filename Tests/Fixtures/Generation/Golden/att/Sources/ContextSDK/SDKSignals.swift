/// The signals (model input features) this SDK computes, each with the SDK version that
/// introduced it: a model may use only signals introduced at or before the SDK that runs it.
enum SDKSignals {
  static let introduced: [String: String] = introducedSignals()
}

private func introducedSignals() -> [String: String] {
  [
    "app_launches": "1.0.0",
    "days_since_install": "1.0.0",
    "hour_of_day": "2.2.0",
    "minutes_in_app": "1.0.0",
    "onboarding_completed": "1.0.0",
    "session_count": "1.0.0",
  ]
}
