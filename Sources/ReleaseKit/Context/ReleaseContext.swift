import Foundation
import ReleaseSystem

/// What every step of a run may use and nothing it produces: the services, the options and the
/// reporter. What a step makes it returns, as the value the next step takes (see `Phases.swift`).
public final class ReleaseContext: Sendable {
  public let services: Services
  public let options: ReleaseOptions
  public let reporter: Reporter

  public init(services: Services, options: ReleaseOptions, reporter: Reporter) {
    self.services = services
    self.options = options
    self.reporter = reporter
  }

  public var distDirectory: URL { services.resolve(options.distPath) }
  public var cacheDirectory: URL { services.resolve(options.cachePath) }
  public var logsDirectory: URL { distDirectory.appendingPathComponent("logs") }
}
