import Foundation
import ReleaseSystem

/// S3-compatible object storage as a publish destination (filled in with ReleaseNetwork's client).
enum S3ObjectStore {
  static func make(
    bucket: String, prefix: String, endpoint: String?, region: String?, baseURL: String?,
    environment: [String: String]
  ) throws -> ObjectStore {
    throw ReleaseError.usage("s3 publishing is not wired yet")
  }
}
