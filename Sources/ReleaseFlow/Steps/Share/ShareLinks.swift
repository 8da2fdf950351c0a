import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleasePipeline
import ReleasePublishing
import ReleaseSystem

/// Presigned GET URLs for one published release of one customer in an S3 destination: its
/// zip, the zip's signature and the customer's index. The release must be published: the
/// customer's index must list the version and the zip must be there (read and HEAD); a
/// signature that is not there is reported (nil), not refused, since releases published
/// before signing have none.
package struct ShareLinks: Sendable {
  let customer: String
  let version: SemanticVersion
  /// `s3://bucket[/prefix]`, for messages.
  let location: String
  /// The zip's key below the destination's prefix.
  let zipKey: String
  let zip: URL
  let signature: URL?
  let index: URL
  let expires: Date
  let usesSessionToken: Bool

  /// Why there is nothing to share. Each names the destination and the object.
  enum ShareError: Error, CustomStringConvertible {
    case neverPublished(location: String, customer: String, indexKey: String)
    case versionNotPublished(location: String, customer: String, version: String, listed: [String])
    case zipMissing(location: String, key: String, indexKey: String)
    case unreadableIndex(location: String, key: String, reason: String)

    var description: String {
      switch self {
      case .neverPublished(let location, let customer, let indexKey):
        return "share: \(customer) was never published to \(location) (no \(indexKey))"
      case .versionNotPublished(let location, let customer, let version, let listed):
        let versions = listed.isEmpty ? "none" : listed.suffix(5).joined(separator: ", ")
        return
          "share: \(customer) \(version) was never published to \(location) (published versions: \(versions)); give --version"
      case .zipMissing(let location, let key, let indexKey):
        return
          "share: \(location)/\(key) is missing, although \(indexKey) lists it; publish the release again"
      case .unreadableIndex(let location, let key, let reason):
        return "share: \(location)/\(key): not an index written by release (\(reason))"
      }
    }

    /// Whether the input names something never published (exit 2), rather than a broken store (exit 1).
    var isBadInput: Bool {
      switch self {
      case .neverPublished, .versionNotPublished: return true
      case .zipMissing, .unreadableIndex: return false
      }
    }
  }

  /// Reads the customer's index, checks the objects, and signs a GET of each at `date`.
  static func presign(
    customer: String, version: SemanticVersion, store: S3ObjectStore, expiresIn seconds: Int, at date: Date
  ) throws -> ShareLinks {
    let location = store.displayName
    let indexKey = ReleaseLayout.customerIndexKey(customer)
    do {
      guard let object = try store.read(indexKey) else {
        throw ShareError.neverPublished(location: location, customer: customer, indexKey: indexKey)
      }
      // Plain or signed (a DSSE envelope): only what it points at is read here, and the
      // customer checks the signatures.
      let index: CustomerIndex
      do {
        index = try CustomerIndex.decode(object.data, trusted: nil, location: "\(location)/\(indexKey)")
      } catch PublishError.unreadableIndex(_, let reason) {
        throw ShareError.unreadableIndex(location: location, key: indexKey, reason: reason)
      }
      guard let entry = index.versions.first(where: { SemanticVersion($0.version) == version }) else {
        throw ShareError.versionNotPublished(
          location: location, customer: customer, version: version.description,
          listed: index.versions.map(\.version))
      }
      // The entry's URL ends in the zip's file name, whatever base the publisher served it from.
      guard let file = entry.url.split(separator: "/").last.map(String.init), file.hasSuffix(".zip") else {
        throw ShareError.unreadableIndex(
          location: location, key: indexKey, reason: "the url of \(entry.version) does not name a .zip")
      }
      let zipKey = ReleaseLayout.artifactKey(customer: customer, version: version, file: file)
      guard try exists(zipKey, in: store) else {
        throw ShareError.zipMissing(location: location, key: zipKey, indexKey: indexKey)
      }
      let signatureKey = zipKey + ".sig"
      let signed = try exists(signatureKey, in: store)
      let presigner = S3Presigner(client: store.client)
      func sign(_ key: String) throws -> S3PresignedURL {
        try presigner.presignedGetURL(for: store.key(key), expiresIn: seconds, at: date)
      }
      let zip = try sign(zipKey)
      return ShareLinks(
        customer: customer, version: version, location: location, zipKey: zipKey, zip: zip.url,
        signature: signed ? try sign(signatureKey).url : nil, index: try sign(indexKey).url,
        expires: zip.expires,
        usesSessionToken: zip.usesSessionToken)
    } catch let error as ShareError {
      throw error.isBadInput
        ? ReleaseError.invalidInput(error.description)
        : ReleaseError.stepFailed(step: "share", reason: error.description)
    } catch let error as S3AccessError {
      throw ReleaseError.stepFailed(step: "share", reason: error.description)
    }
  }

  /// A HEAD of the object; a 403 for want of a permission says so, as publishing does.
  private static func exists(_ key: String, in store: S3ObjectStore) throws -> Bool {
    do { return try store.client.head(store.key(key)) != nil } catch NetworkError.unexpectedStatus(
      _, _, 403, _, let code, _, _)
      where S3AccessError.meansMissingPermission(code)
    {
      throw S3AccessError.forbidden(location: "\(store.displayName)/\(key)")
    }
  }

  /// `YYYY-MM-DDTHH:MM:SSZ`, UTC.
  package static func timestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
  }
}
