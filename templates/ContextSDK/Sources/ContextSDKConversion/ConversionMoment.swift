import ContextSDKCore
import Foundation

#if canImport(CoreML)
  import CoreML
#endif

/// The in-app conversion moments this feature decides. Each is a flow whose model the
/// customer's build bundles (or receives over the air).
public enum ConversionMoment: String, CaseIterable, Sendable {
  /// Whether to show the upsell at the end of onboarding.
  case onboardingUpsell = "onboarding_upsell"
  /// Whether now is a good moment to show the paywall.
  case paywallTiming = "paywall_timing"
  /// Whether to ask for an App Store rating now.
  case ratingRequest = "rating_request"
  /// Whether to remind a user on a trial that it ends.
  case trialReminder = "trial_reminder"

  /// The flow whose model decides this moment.
  public var flowName: String { rawValue }
}

extension CustomerBuild {
  /// The conversion moments this build has a model for, in declaration order.
  public static var conversionMoments: [ConversionMoment] {
    ConversionMoment.allCases.filter { configuration.model(forFlow: $0.flowName) != nil }
  }

  /// The model that decides `moment`: the bundled one or a newer download (see
  /// `resolveModel(forFlow:downloadsDirectory:)`); `nil` when this build has no model for it.
  public static func conversionModel(
    for moment: ConversionMoment, downloadsDirectory: URL = ModelUpdateConfiguration.defaultModelsDirectory
  ) -> ResolvedModel? {
    resolveModel(forFlow: moment.flowName, downloadsDirectory: downloadsDirectory)
  }
}

#if canImport(CoreML)
  extension CustomerBuild {
    /// The model that decides `moment`, compiled and loaded once
    /// (`model(forFlow:downloadsDirectory:)`): `try await ContextSDK.model(for: .paywallTiming)`.
    public static func model(
      for moment: ConversionMoment, downloadsDirectory: URL = ModelUpdateConfiguration.defaultModelsDirectory
    ) async throws(ModelLoadError) -> LoadedModel<MLModel> {
      try await model(forFlow: moment.flowName, downloadsDirectory: downloadsDirectory)
    }
  }
#endif
