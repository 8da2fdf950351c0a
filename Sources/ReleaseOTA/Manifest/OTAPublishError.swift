import Foundation

/// Why publishing a customer's over-the-air manifest failed.
package enum OTAPublishError: Error, CustomStringConvertible {
  /// The pointer no longer holds what this publish read: another publisher's revision is
  /// there now (`now`; nil when it cannot be read as one).
  case changedMeanwhile(location: String, read: Int, now: Int?)
  case unreadablePointer(location: String, reason: String)
  /// A signed channel's file that no trusted key signed, or not a manifest envelope at all.
  case unverifiedManifest(location: String, reason: String)
  /// `ota/models/<sha256>.mlmodel` holding bytes with another digest.
  case modelDiffers(location: String, sha256: String, size: Int64)
  /// A signed channel's pointer holding a newer revision than the work tree's rollouts.json
  /// records as published (`known`, 0: none): publishing would undo someone's newer change.
  case stalePublisher(location: String, found: Int, known: Int, rolloutsPath: String)
  /// A signed manifest at a revision outside 1 to `SignedOTAChannel.maximumRevision`: devices
  /// refuse it, and nothing can be published above it.
  case revisionOutOfRange(location: String, revision: Int)
  /// `--refresh`: the file of the revision rollouts.json records as published is missing, or
  /// not what was published (`found`: what is wrong with it).
  case publishedRevisionChanged(location: String, found: String, revision: Int)
  /// A publish that would take a revision above `SignedOTAChannel.maximumRevision`, or step
  /// over more files above the pointer than interrupted publishes leave.
  case noRevisionLeft(location: String, reason: String)

  package var description: String {
    switch self {
    case .changedMeanwhile(let location, _, _), .unreadablePointer(let location, _),
      .unverifiedManifest(let location, _), .modelDiffers(let location, _, _),
      .stalePublisher(let location, _, _, _), .revisionOutOfRange(let location, _),
      .publishedRevisionChanged(let location, _, _), .noRevisionLeft(let location, _):
      return "\(location): \(message)"
    }
  }

  /// What is wrong with the object at `location`.
  package var message: String {
    switch self {
    case .changedMeanwhile(_, let read, let now):
      let found = now.map { "it now holds revision \($0)" } ?? "it no longer holds a readable manifest"
      return
        "changed while this publish held revision \(read): \(found) (another rollout was published); nothing was overwritten: rerun 'release ota publish' to publish on top of it"
    case .unreadablePointer(_, let reason):
      return
        "not an OTA manifest written by release for this customer (\(reason)); fix or remove it, then publish again"
    case .unverifiedManifest(_, let reason):
      return
        "not a manifest signed by a trusted key (\(reason)); someone other than this tool wrote it, or with another key: find out who before publishing over it"
    case .stalePublisher(_, let found, let known, let rolloutsPath):
      let knows = known == 0 ? "records no published revision" : "records revision \(known)"
      return
        "holds revision \(found), and \(rolloutsPath) \(knows): another publisher's newer change is there; nothing was published: update this work tree (pull \(rolloutsPath)), then publish again"
    case .revisionOutOfRange(_, let revision):
      let bound =
        revision < 1 ? "below 1" : "above \(SignedOTAChannel.maximumRevision), the largest a device accepts"
      return
        "signed by a trusted key, but at revision \(revision), \(bound); nothing was published over it: a signing key may have leaked, find out who signed it"
    case .publishedRevisionChanged(_, let found, let revision):
      return
        "\(found); a refresh re-signs only the revision rollouts.json records as published (\(revision)), and its file is gone or changed: run 'release ota publish' to publish the work tree's state as a new revision"
    case .noRevisionLeft(_, let reason):
      return "\(reason); nothing was published"
    case .modelDiffers(_, let sha256, let size):
      return
        "holds bytes with sha256 \(sha256) (\(size) bytes), not the model its name says; a published model is never overwritten: find out what wrote it"
    }
  }
}
