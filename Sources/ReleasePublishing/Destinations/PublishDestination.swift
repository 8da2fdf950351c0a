import Foundation
import ReleaseCore
import ReleaseSystem

/// Where a release is published, from `--publish` (repeatable) or `release.config.json`:
/// - `dir:<path>` (or a plain path): a directory, the default destination;
/// - `s3://<bucket>[/<prefix>]`: S3-compatible storage (AWS S3, Cloudflare R2, MinIO), with
///   `--s3-endpoint`, region from `--s3-region` or `AWS_REGION`, credentials from the standard
///   `AWS_*` variables;
/// - `git:<location with {id}>`: one SwiftPM releases repository per customer, e.g.
///   `git:/srv/releases/{id}.git` or `git:https://git.example.com/sdk/{id}.git`.
package enum PublishDestination: Equatable, Sendable, CustomStringConvertible {
  case directory(path: String, baseURL: String?)
  case s3(
    bucket: String, prefix: String, endpoint: String?, region: String?, baseURL: String?,
    origins: SettingOrigins = .init())
  case releasesRepositories(template: String)

  package var description: String {
    switch self {
    case .directory(let path, _): return path
    case .s3(let bucket, let prefix, _, _, _, _):
      return "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)")
    case .releasesRepositories(let template): return "git:\(template)"
    }
  }

  /// Parses a `--publish` value; the error names the argument and what was expected.
  package static func parse(
    _ text: String, s3Endpoint: String?, region: String? = nil, baseURL: String?,
    origins: SettingOrigins = .init()
  ) throws -> PublishDestination {
    if text.hasPrefix("s3://") {
      let rest = text.dropFirst("s3://".count)
      let parts = rest.split(separator: "/", maxSplits: 1).map(String.init)
      guard let bucket = parts.first, isValidBucket(bucket) else {
        throw ReleaseError.usage(
          "--publish \(text): expected s3://<bucket>[/<prefix>] with a bucket of 3-63 lower-case letters, digits, '-' or '.'"
        )
      }
      let prefix = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "/")) : ""
      guard prefix.allSatisfy(isKeyCharacter) else {
        throw ReleaseError.usage(
          "--publish \(text): the prefix may hold only letters, digits, '-', '_', '.', '~' and '/'")
      }
      let segments = prefix.split(separator: "/", omittingEmptySubsequences: false)
      guard !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) || prefix.isEmpty else {
        throw ReleaseError.usage("--publish \(text): the prefix may not have empty, '.' or '..' segments")
      }
      return .s3(
        bucket: bucket, prefix: prefix, endpoint: s3Endpoint, region: region, baseURL: baseURL,
        origins: origins)
    }
    if text.hasPrefix("git:") {
      let template = String(text.dropFirst(4))
      if URLCredentials.carriesCredential(template) {
        throw ReleaseError.usage(
          "--publish git:\(URLCredentials.redacted(template)): a credential in a URL ends up in every package's README, release.json and process list; remove it and let git find it (a credential helper, or an SSH key in ssh-agent)"
        )
      }
      guard template.contains("{id}") else {
        throw ReleaseError.usage(
          "--publish git:\(URLCredentials.redacted(template)): expected a location with {id} for the customer, e.g. git:/srv/releases/{id}.git"
        )
      }
      return .releasesRepositories(template: template)
    }
    let path = text.hasPrefix("dir:") ? String(text.dropFirst(4)) : text
    guard !path.isEmpty, !path.contains("://") else {
      throw ReleaseError.usage(
        "--publish \(text): expected dir:<path>, s3://<bucket>[/<prefix>] or git:<location with {id}>")
    }
    return .directory(path: path, baseURL: baseURL)
  }

  package enum Resolved: Sendable {
    case objectStore(ObjectStore)
    case releasesRepositories(String)
  }

  /// Makes the destination's store, for releases (private) or for devices (the over-the-air
  /// channel). Fails (exit 2) on what can be checked without writing anything: missing
  /// credentials, a malformed endpoint. Done before any build starts.
  package func resolve(_ services: Services, audience: StoreAudience = .customers) throws -> Resolved {
    switch self {
    case .directory(let path, let baseURL):
      return .objectStore(
        DirectoryObjectStore(root: services.resolve(path), displayName: path, baseURL: baseURL))
    case .s3(let bucket, let prefix, let endpoint, let region, let baseURL, let origins):
      return .objectStore(
        try S3ObjectStore.make(
          bucket: bucket, prefix: prefix, endpoint: endpoint, region: region, baseURL: baseURL,
          environment: services.environment, origins: origins, audience: audience, http: services.http))
    case .releasesRepositories(let template):
      return .releasesRepositories(template)
    }
  }

  package static func isValidBucket(_ name: String) -> Bool {
    (3...63).contains(name.count)
      && name.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
      }
  }

  package static func isKeyCharacter(_ character: Character) -> Bool {
    character.isASCII && (character.isLetter || character.isNumber || "-_.~/".contains(character))
  }
}
