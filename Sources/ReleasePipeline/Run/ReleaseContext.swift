import Foundation
import ReleaseCore
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

/// What every step of a run may use and nothing it produces: the services, the run's settings
/// (resolved once, before the run: `SettingsResolution`) and the reporter. What a step makes it
/// returns, as the value the next step takes (see `Phases.swift`).
package final class ReleaseContext: Sendable {
  package let services: Services
  package let settings: RunSettings
  package let reporter: Reporter

  package init(services: Services, settings: RunSettings, reporter: Reporter) {
    self.services = services
    self.settings = settings
    self.reporter = reporter
  }

  package var distDirectory: URL { services.resolve(settings.inputs.distPath) }
  package var cacheDirectory: URL { services.resolve(settings.inputs.cachePath) }
  package var logsDirectory: URL { distDirectory.appendingPathComponent("logs") }
}
