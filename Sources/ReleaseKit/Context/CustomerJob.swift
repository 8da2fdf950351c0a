import Foundation
import ReleaseGeneration
import ReleaseManifest

/// The run's fixed inputs, resolved once by the load and plan steps.
public struct ReleaseInputs: Sendable {
  public var sdkVersion: SemanticVersion
  public var templateDirectory: URL
  public var templateDigest: String
  /// `swift --version`; part of the build digest (a new toolchain rebuilds).
  public var toolchain: String
  /// Every model the selected customers use, read and hashed once.
  public var models: [ModelReference: ModelFacts]
  /// Models a URL store lists but that could not be downloaded (after retries), with why:
  /// the customers using them fail, the others go on.
  public var unavailableModels: [ModelReference: String] = [:]
}

/// What the tool knows of one model file of the store.
public struct ModelFacts: Sendable, Equatable {
  public var reference: ModelReference
  public var file: URL
  public var sha256: String
  public var size: Int64
  public var info: CoreMLModelInfo
}

/// One customer's work in a run, from plan to result.
public final class CustomerJob: @unchecked Sendable {
  public enum Status: Hashable, Sendable {
    case pending
    /// `dist/` already holds a verified release made from the same inputs.
    case upToDate
    case succeeded
    case failed(step: String, reason: String)
    /// Not started because `--fail-fast` stopped the run.
    case cancelled
  }

  public let customer: Customer
  public let version: SemanticVersion
  /// What the release is made from; its source digest decides versions, its build digest
  /// whether `dist/` is up to date.
  public let digest: InputDigest
  /// Why the job builds (or why it is up to date), for `--dry-run` and the log.
  public let reason: String

  public var status: Status = .pending
  public var duration: Double = 0
  public var packageDirectory: URL?
  public var generated: GeneratedPackage?
  /// The models embedded in the package, in the manifest's order.
  public var embeddedModels: [EmbeddedModel] = []
  public var archive: (path: URL, sha256: String, size: Int64)?
  public var testCount: Int?
  public var logFile: URL?

  public init(
    customer: Customer, version: SemanticVersion, digest: InputDigest, reason: String, status: Status
  ) {
    self.customer = customer
    self.version = version
    self.digest = digest
    self.reason = reason
    self.status = status
  }

  public var id: String { customer.id }
  /// `dist/<id>/<version>/`.
  public func releaseDirectory(in dist: URL) -> URL {
    dist.appendingPathComponent(customer.id).appendingPathComponent(version.description)
  }
  public var archiveName: String { "\(customer.packageName)-\(version).zip" }
}
