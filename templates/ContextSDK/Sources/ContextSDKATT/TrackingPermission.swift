import ContextSDKCore
import Foundation

/// App Tracking Transparency: this feature's model decides when the app asks for tracking
/// permission (`ATTrackingManager.requestTrackingAuthorization`), since the system shows the
/// prompt only once.
public enum TrackingPermission {
  /// The flow whose model decides when to show the prompt.
  public static let flowName = "tracking_permission"
}

extension CustomerBuild {
  /// The model that decides whether now is a good moment for the tracking permission prompt:
  /// the bundled one or a newer download (see `resolveModel(forFlow:downloadsDirectory:)`);
  /// `nil` when this build has no model for it.
  public static func trackingPermissionModel(
    downloadsDirectory: URL = ModelUpdateConfiguration.defaultModelsDirectory
  ) -> ResolvedModel? {
    resolveModel(forFlow: TrackingPermission.flowName, downloadsDirectory: downloadsDirectory)
  }
}
