import Foundation
import ReleaseCore
import ReleasePipeline
import ReleasePublishing
import ReleaseSystem

/// `release share` from an S3 destination: presigned GET URLs of the customer's published
/// zip, its signature and its index (`ShareLinks`), once each object is found published.
package struct PresignShareLinksStep: RequiredStep {
  package let name = "presign links"

  package init() {}

  package func run(_ request: ShareRun.Request, _ context: ReleaseContext) throws -> ShareLinks {
    guard case .s3(let bucket, let prefix, let endpoint, let region, _, let origins) = request.destination
    else {
      throw ReleaseError.usage(ShareRun.directoryRefusal(request.destination.description))
    }
    let services = context.services
    let client = try S3Settings.client(
      bucket: bucket, endpoint: endpoint, region: region, environment: services.environment,
      purpose: "share \(request.destination)", origins: origins, http: services.http)
    return try ShareLinks.presign(
      customer: request.customer, version: request.version,
      store: S3ObjectStore(client: client, prefix: prefix, publicBase: ""), expiresIn: request.expiresSeconds,
      at: services.clock.now())
  }
}

/// `release share` from a `git:` releases repository: the customer's repository and the
/// version's tag (access is the git host's; nothing is signed).
package struct LocateRepositoryReleaseStep: RequiredStep {
  package let name = "locate repository release"

  package init() {}

  /// A release in a customer's releases repository.
  package struct Located: Sendable {
    package var customer: String
    package var url: String
    package var tag: String
  }

  package func run(_ request: ShareRun.Request, _ context: ReleaseContext) throws -> Located {
    guard case .releasesRepositories(let template) = request.destination else {
      throw ReleaseError.usage(ShareRun.directoryRefusal(request.destination.description))
    }
    return Located(
      customer: request.customer,
      url: ReleasesRepository.url(template: template, id: request.customer, root: context.services.root),
      tag: request.version.description)
  }
}

/// `release share`, last step: writes what the customer needs, as lines or (`--json`) one
/// JSON line, and on standard error what the links cannot do.
package struct ReportShareStep: RequiredStep {
  package let name = "report share"
  let json: Bool

  package init(json: Bool) { self.json = json }

  package enum Shared: Sendable {
    case links(ShareLinks)
    case repository(LocateRepositoryReleaseStep.Located)
  }

  package func run(_ shared: Shared, _ context: ReleaseContext) throws {
    switch shared {
    case .links(let links): report(links, context.services.output)
    case .repository(let located): try report(located, context.services.output)
    }
  }

  private func report(_ located: LocateRepositoryReleaseStep.Located, _ output: OutputStreaming) throws {
    let (url, tag) = (located.url, located.tag)
    if json {
      output.write(
        line: try Self.jsonLine(["customer": located.customer, "version": tag, "repository": url, "tag": tag]
        ),
        to: .standardOutput)
    } else {
      output.write(
        lines: [
          "\(located.customer) \(tag): tag \(tag) of \(url)", ".package(url: \"\(url)\", exact: \"\(tag)\")",
        ],
        to: .standardOutput)
    }
    output.write(
      line:
        "a releases repository is shared through the git host's access control (one repository per customer); no link was made",
      to: .standardError)
  }

  private func report(_ links: ShareLinks, _ output: OutputStreaming) {
    let expires = ShareLinks.timestamp(links.expires)
    if json {
      let urls: [String: Any] = [
        "zip": links.zip.absoluteString, "signature": links.signature?.absoluteString ?? NSNull(),
        "index": links.index.absoluteString,
      ]
      if let line = try? Self.jsonLine([
        "customer": links.customer, "version": links.version.description, "expires": expires, "urls": urls,
      ]) {
        output.write(line: line, to: .standardOutput)
      }
    } else {
      output.write(
        lines: [
          "\(links.customer) \(links.version) from \(links.location), links valid until \(expires):",
          "zip        \(links.zip.absoluteString)",
          "signature  \(links.signature?.absoluteString ?? "(none published)")",
          "index      \(links.index.absoluteString)",
        ], to: .standardOutput)
    }
    if links.signature == nil {
      output.write(
        line:
          "warning: \(links.location)/\(links.zipKey).sig does not exist: this release was published unsigned, so the customer cannot check where it came from",
        to: .standardError)
    }
    if links.usesSessionToken {
      output.write(
        line:
          "note: signed with temporary credentials (AWS_SESSION_TOKEN): the links stop working when those credentials expire, which may be well before \(expires)",
        to: .standardError)
    }
  }

  private static func jsonLine(_ object: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }
}
