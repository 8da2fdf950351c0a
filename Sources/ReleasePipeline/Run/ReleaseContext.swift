import Foundation
import ReleaseCore
import ReleaseReporting
import ReleaseSystem

/// What every step of a run may use and nothing it produces: the services, the options and the
/// reporter. What a step makes it returns, as the value the next step takes (see `Phases.swift`).
package final class ReleaseContext: Sendable {
  package let services: Services
  package let options: ReleaseOptions
  package let reporter: Reporter

  package init(services: Services, options: ReleaseOptions, reporter: Reporter) {
    self.services = services
    self.options = options
    self.reporter = reporter
  }

  package var distDirectory: URL { services.resolve(options.distPath) }
  package var cacheDirectory: URL { services.resolve(options.cachePath) }
  package var logsDirectory: URL { distDirectory.appendingPathComponent("logs") }
}
