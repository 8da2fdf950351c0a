import Foundation
import ReleaseCore
import ReleasePipeline
import ReleasePublishing

/// `release share <id>`: what a customer needs to fetch one release. From an S3 release
/// destination, presigned GET URLs (SigV4, query string) for the zip, its signature and the
/// customer's index, valid for `--expires`; from a `git:` releases repository, the
/// repository's URL and the tag. Nothing is uploaded or changed.
package enum ShareRun {
  /// What `release share` is asked for.
  package struct Request: Sendable {
    /// The customer's id slug.
    package var customer: String
    package var version: SemanticVersion
    package var expiresSeconds: Int
    /// An S3 destination or a releases repository; a directory cannot be shared.
    package var destination: PublishDestination
    package var json: Bool

    package init(
      customer: String, version: SemanticVersion, expiresSeconds: Int, destination: PublishDestination,
      json: Bool
    ) {
      self.customer = customer
      self.version = version
      self.expiresSeconds = expiresSeconds
      self.destination = destination
      self.json = json
    }
  }

  /// The steps of `release share`: the links, or the repository and tag, then what they are.
  package static func pipeline(_ request: Request, _ pipeline: Pipeline) throws {
    let shared: ReportShareStep.Shared
    if case .releasesRepositories = request.destination {
      shared = .repository(try pipeline.run(LocateRepositoryReleaseStep(), request))
    } else {
      shared = .links(try pipeline.run(PresignShareLinksStep(), request))
    }
    try pipeline.run(ReportShareStep(json: request.json), shared)
  }

  /// Why a directory destination is refused.
  package static func directoryRefusal(_ destination: String) -> String {
    "share: \(destination): a directory destination cannot be shared; publish to s3:// (shared with presigned links) or git: (one repository per customer) and share from there"
  }
}
